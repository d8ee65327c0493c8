/** Imported first by every benchmark: quiet request logs unless LOG_LEVEL says otherwise. */
process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
