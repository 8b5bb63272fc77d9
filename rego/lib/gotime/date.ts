/** A Go Time viewed in a zone: its civil fields (Time.Date, Time.Clock) and Time.AddDate. */
import { NS_PER_SEC, civilAt, floorDiv, unixFromCivil, type Civil } from './civil.js';
import { localToUnix, type Zone } from './zone.js';

/** The civil fields of instant `ns` (Unix nanoseconds) in `zone`. */
export function civilIn(ns: bigint, zone: Zone): Civil {
  return civilAt(ns, zone.offsetAt(floorDiv(ns, NS_PER_SEC)));
}

/** Go's Time.AddDate: add to the civil fields in the time's zone, then normalise. */
export function addDate(ns: bigint, zone: Zone, years: number, months: number, days: number): bigint {
  const c = civilIn(ns, zone);
  const local = unixFromCivil(
    BigInt(c.year) + BigInt(years),
    BigInt(c.month) + BigInt(months),
    BigInt(c.day) + BigInt(days),
    BigInt(c.hour),
    BigInt(c.minute),
    BigInt(c.second),
  );
  return localToUnix(zone, local) * NS_PER_SEC + BigInt(c.nanosecond);
}
