/** `nri watch` lives in src/nri; the CLI reaches it through the harness, as every layer rule says. */
export { watchEvents } from '../../nri/watch.js';
