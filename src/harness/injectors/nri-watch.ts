/** `nri watch` lives in src/nri; the CLI reaches it through the harness, as every layer rule says. */
export { PLUGIN_INDEX_PATTERN, PLUGIN_NAME_PATTERN } from '../../nri/plugin-options.js';
export { watchEvents } from '../../nri/watch.js';
