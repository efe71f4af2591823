/** Text into HTML and SVG: the five characters markup cares about, after the clean-up every report does. */
import { cleanText } from '../text.js';

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function esc(s: string): string {
  return cleanText(s).replace(/[&<>"']/g, (ch) => ENTITIES[ch] ?? ch);
}

/** At most `max` characters, with an ellipsis when cut; the full text goes in a <title> or the table. */
export function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}
