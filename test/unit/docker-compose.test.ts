/**
 * docker-compose.yml and the SearXNG settings it mounts parse as YAML and wire the live web
 * research source: a `searxng` service whose settings list the JSON format, and
 * the API and worker on `SEARCH_PROVIDER=searxng` with its URL. (There is no Docker daemon here:
 * the file is validated as data; `docker compose config` is the check where Docker exists.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { load } from 'js-yaml';
import { REPO_ROOT } from '../../src/config';

interface Service {
  image?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, unknown>;
}
const compose = load(fs.readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8')) as { services: Record<string, Service> };

test('a SearXNG service with its JSON API enabled by the mounted settings', () => {
  const searxng = compose.services.searxng;
  expect(searxng.image).toMatch(/^searxng\/searxng:/);
  const mount = (searxng.volumes ?? []).find((v) => v.endsWith(':/etc/searxng/settings.yml:ro'));
  expect(mount).toBeDefined();
  const settingsFile = path.join(REPO_ROOT, mount!.split(':')[0]);
  const settings = load(fs.readFileSync(settingsFile, 'utf8')) as {
    use_default_settings: boolean;
    search: { formats: string[] };
    server: { limiter: boolean };
  };
  expect(settings.use_default_settings).toBe(true);
  expect(settings.search.formats).toContain('json');
  expect(settings.server.limiter).toBe(false);
});

test('the API and the worker research the live web through it', () => {
  for (const name of ['api', 'worker']) {
    const env = compose.services[name].environment ?? {};
    expect(env.SEARCH_PROVIDER).toMatch(/searxng/);
    expect(env.SEARXNG_URL).toBe('http://searxng:8080');
    expect(compose.services[name].depends_on).toHaveProperty('searxng');
  }
});

test('a MinIO service holds the files the API and the worker share', () => {
  expect(compose.services.minio.image).toMatch(/^minio\/minio:/);
  expect(compose.services.minio.volumes).toContain('minio-data:/data');
  for (const name of ['api', 'worker']) {
    const env = compose.services[name].environment ?? {};
    expect(env.S3_ENDPOINT).toMatch(/http:\/\/minio:9000/);
    for (const key of ['S3_BUCKET', 'S3_REGION', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'S3_FORCE_PATH_STYLE']) expect(env[key]).toBeTruthy();
    expect(compose.services[name].depends_on).toHaveProperty('minio-init');
  }
});
