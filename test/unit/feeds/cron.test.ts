/** The cron check of feed schedules (src/services/feeds/cron.ts; crontab(5) five-field grammar). */
import { cronError } from '../../../src/services/feeds/cron';

test.each(['0 3 * * *', '*/15 * * * *', '0 0 1,15 * *', '30 5 * * mon-fri', '0 12 * jan,jul sun', '0 0 * * 7', '@daily', '@HOURLY', ' 5 4 * * 0 '])(
  'accepts %j',
  (expr) => {
    expect(cronError(expr)).toBeNull();
  },
);

test.each([
  ['61 * * * *', /minute range 0-59/],
  ['* 24 * * *', /hour range 0-23/],
  ['* * 0 * *', /day of month range 1-31/],
  ['* * * 13 *', /month range 1-12/],
  ['* * * * 8', /day of week range 0-7/],
  ['* * * *', /5 fields/],
  ['* * * * * *', /5 fields/],
  ['*/0 * * * *', /positive whole number/],
  ['5-1 * * * *', /runs backwards/],
  ['@often', /5 fields/],
  ['a * * * *', /outside the minute range/],
  ['1/2/3 * * * *', /not a minute expression/],
])('refuses %j', (expr, why) => {
  expect(cronError(expr)).toMatch(why);
});
