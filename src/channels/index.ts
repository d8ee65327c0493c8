/**
 * The channels domain (docs/channels.md): channel definitions, GTIN checks, the rules, the
 * mapping proposal and its application, and the feed writers. Pure: no database, no HTTP, no
 * module state. Other layers import from here only.
 */
export * from './types';
export { CHANNELS, channelById, isChannelId } from './definitions';
export { GTIN_LENGTHS, gtinCheckDigit, normaliseGtin, parseGtin, restrictedKind, toGtin14, type GtinCheck, type RestrictedKind } from './gtin';
export { RULES, ENUMERATIONS, apparelKind, gtinIssue, isHttpUrl, parsePrice, type ChannelRule } from './rules';
export { validateRow, isExportable } from './validate';
export { proposeMapping, mappingOf, normaliseFieldName } from './mapping';
export { applyMapping, formatPrice, resolveSource, LIST_ATTRIBUTES } from './apply-mapping';
export { channelValue, toChannelRow } from './normalise';
export { createRenderer, tsvField, xmlText } from './renderers';
export { schemaOrgGroup, schemaOrgProduct, schemaOrgRenderer } from './render-schema-org';
