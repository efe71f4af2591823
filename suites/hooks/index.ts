/** The hooks suite, in catalogue order. Listed explicitly: no discovery, so `list` stays fast and ordered. */
import { inSuite } from '../../src/harness/face.js';
import * as hook01 from './hook-01.js';
import * as hook02 from './hook-02.js';
import * as hook03 from './hook-03.js';
import * as hook04 from './hook-04.js';
import * as hook05 from './hook-05.js';
import * as hook06 from './hook-06.js';
import * as hook07 from './hook-07.js';
import * as hook08 from './hook-08.js';
import * as hook09 from './hook-09.js';
import * as hook10 from './hook-10.js';
import * as hook11 from './hook-11.js';
import * as hook12 from './hook-12.js';
import * as hook13 from './hook-13.js';

export const checks = inSuite('hooks', [
  hook01.check,
  hook02.check,
  hook03.check,
  hook04.check,
  hook05.check,
  hook06.check,
  hook07.check,
  hook08.check,
  hook09.check,
  hook10.check,
  hook11.check,
  hook12.check,
  hook13.check,
]);
