/** The names suite, in catalogue order. Listed explicitly: no discovery, so `list` stays fast and ordered. */
import { inSuite } from '../../src/harness/face.js';
import * as name01 from './name-01.js';
import * as name02 from './name-02.js';
import * as name03 from './name-03.js';
import * as name04 from './name-04.js';
import * as name05 from './name-05.js';
import * as name06 from './name-06.js';
import * as name07 from './name-07.js';
import * as name08 from './name-08.js';

export const checks = inSuite('names', [
  name01.check,
  name02.check,
  name03.check,
  name04.check,
  name05.check,
  name06.check,
  name07.check,
  name08.check,
]);
