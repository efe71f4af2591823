/** The test and pause images of a fleet run: what the plugin env says, else what a cluster can pull. */
import type { RunConfig } from '../../harness/core/settings.js';
import { CLUSTER_TEST_IMAGE, pauseImageOf } from './cluster-images.js';

/** Which of the two images the user named (flag, plugin env or config file). */
export interface NamedImages {
  testImage: boolean;
  pauseImage: boolean;
}

export async function fleetImages(
  config: RunConfig,
  named: NamedImages,
  log: (text: string) => void,
): Promise<Pick<RunConfig, 'testImage' | 'pauseImage'>> {
  const testImage = named.testImage ? config.testImage : CLUSTER_TEST_IMAGE;
  if (!named.testImage) log(`test image ${testImage} (CRI_CONFORM_TEST_IMAGE overrides it)`);
  if (named.pauseImage) return { testImage, pauseImage: config.pauseImage };
  const { connectRuntime } = await import('../../harness/runtime/environment.js');
  const client = await connectRuntime(config);
  try {
    const pause = await pauseImageOf(client);
    log(`pause image ${pause.image}, from ${pause.source} (CRI_CONFORM_PAUSE_IMAGE overrides it)`);
    return { testImage, pauseImage: pause.image };
  } finally {
    client.close();
  }
}
