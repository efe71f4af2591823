/** The idempotency suite, in catalogue order. Listed explicitly: no discovery, so `list` stays fast and ordered. */
import { inSuite } from '../../src/harness/face.js';
import * as idem01 from './idem-01.js';
import * as idem02 from './idem-02.js';
import * as idem03 from './idem-03.js';
import * as idem04 from './idem-04.js';
import * as idem05 from './idem-05.js';
import * as idem06 from './idem-06.js';
import * as idem07 from './idem-07.js';
import * as idem08 from './idem-08.js';
import * as idem09 from './idem-09.js';
import * as idem10 from './idem-10.js';
import * as idem11 from './idem-11.js';
import * as idem12 from './idem-12.js';
import * as idem13 from './idem-13.js';
import * as idem14 from './idem-14.js';
import * as idem15 from './idem-15.js';
import * as idem16 from './idem-16.js';

export const checks = inSuite('idempotency', [
  idem01.check,
  idem02.check,
  idem03.check,
  idem04.check,
  idem05.check,
  idem06.check,
  idem07.check,
  idem08.check,
  idem09.check,
  idem10.check,
  idem11.check,
  idem12.check,
  idem13.check,
  idem14.check,
  idem15.check,
  idem16.check,
]);
