/** The window of a Budget's spec (api/budget.ts) as the ledgers count it (windows.ts). */
import type { BudgetWindowSpec } from '../../api/index.js';
import type { BudgetWindow } from './windows.js';

/**
 * `spec.window` as a `BudgetWindow`: rolling when `hours` is given, else the calendar `period` in `timeZone`. NB: the
 * schema requires exactly one of period and hours, so a spec that passed it always has one or the other.
 */
export function budgetWindowOf(w: BudgetWindowSpec): BudgetWindow {
  return w.hours !== undefined ? { hours: w.hours } : { period: w.period!, timeZone: w.timeZone };
}
