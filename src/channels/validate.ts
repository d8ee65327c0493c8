import { RULES } from './rules';
import type { ChannelDefinition, ChannelIssue, FeedRow, ValidateContext } from './types';

/**
 * Every issue the channel's rules find in a row (src/channels/rules.ts; docs/channels.md,
 * "Rules"), errors and warnings in rule order. An item with an error is left out of a feed.
 */
export function validateRow(channel: ChannelDefinition, row: FeedRow, ctx: ValidateContext = {}): ChannelIssue[] {
  return RULES.flatMap((rule) => rule(row, channel, ctx));
}

/** Whether the issues let the item into a feed (no error among them). */
export function isExportable(issues: readonly ChannelIssue[]): boolean {
  return !issues.some((i) => i.severity === 'error');
}
