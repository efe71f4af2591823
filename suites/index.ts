/** Every check cri-conform knows, suite by suite, in catalogue order (docs/checks.md). */
import type { Check } from '../src/harness/face.js';
import { checks as hooks } from './hooks/index.js';
import { checks as idempotency } from './idempotency/index.js';
import { checks as names } from './names/index.js';
import { checks as teardown } from './teardown/index.js';

export const ALL_CHECKS: readonly Check[] = [...idempotency, ...names, ...hooks, ...teardown];
