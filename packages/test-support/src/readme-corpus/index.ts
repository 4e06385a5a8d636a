import { inkwellDesktop, pantryService } from "./apps.js";
import type { ReadmeFixture } from "./fixture.js";
import { quarkLibrary, tabulaLibrary, veloxFramework } from "./libraries.js";
import { dotfilesMinimal, padMinimal } from "./minimal.js";
import { wharfMonorepo } from "./monorepo.js";
import { pixmillConverter, ripfindCli, tidyfilesCli } from "./tools.js";

export type { ReadmeFixture } from "./fixture.js";

/** READMEs shaped like real projects', for checking what the README author makes of them. */
export const README_CORPUS: ReadmeFixture[] = [
  quarkLibrary,
  veloxFramework,
  tabulaLibrary,
  tidyfilesCli,
  ripfindCli,
  pixmillConverter,
  inkwellDesktop,
  pantryService,
  padMinimal,
  dotfilesMinimal,
  wharfMonorepo,
];
