/** The teardown suite, in catalogue order. Listed explicitly: no discovery, so `list` stays fast and ordered. */
import { inSuite } from '../../src/harness/face.js';
import * as tear01 from './tear-01.js';
import * as tear02 from './tear-02.js';
import * as tear03 from './tear-03.js';
import * as tear04 from './tear-04.js';
import * as tear05 from './tear-05.js';
import * as tear06 from './tear-06.js';
import * as tear07 from './tear-07.js';
import * as tear08 from './tear-08.js';
import * as tear09 from './tear-09.js';
import * as tear10 from './tear-10.js';
import * as tear11 from './tear-11.js';
import * as tear12 from './tear-12.js';
import * as tear13 from './tear-13.js';
import * as tear14 from './tear-14.js';
import * as tear15 from './tear-15.js';
import * as tear16 from './tear-16.js';

export const checks = inSuite('teardown', [
  tear01.check,
  tear02.check,
  tear03.check,
  tear04.check,
  tear05.check,
  tear06.check,
  tear07.check,
  tear08.check,
  tear09.check,
  tear10.check,
  tear11.check,
  tear12.check,
  tear13.check,
  tear14.check,
  tear15.check,
  tear16.check,
]);
