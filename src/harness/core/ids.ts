/** How ids appear in timelines and messages: runtimes' 64-hex ids cut to a prefix that stays unique in a run. */
const SHORT_ID_LENGTH = 13;

export function shortId(id: string): string {
  return id.slice(0, SHORT_ID_LENGTH);
}
