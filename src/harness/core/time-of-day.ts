/** The time of day (UTC) to the millisecond, "21:43:00.944", to compare with a runtime's own log. */
export function timeOfDay(at: number | Date = Date.now()): string {
  return new Date(at).toISOString().slice(11, 23);
}
