/**
 * How builders mark the start of a step in their log. The classic builder prints
 * `Step 3/5 : RUN exit 3`; BuildKit's decoded trace (provider-docker) prints `#7 [build 3/5] RUN
 * npm ci` when a step starts, `#7 <output>` as it prints, and `#7 ERROR: <why>` when it fails.
 */
export const CLASSIC_STEP = /^Step (\d+)\/(\d+) : ?(.*)$/;

/**
 * `#7 [build 3/5] RUN npm ci`, `#5 [2/3] COPY . .`, `#4 [linux/amd64 build 1/4] FROM …`: a step
 * counts only instructions that make one, so a tool's own `[1/4] Resolving packages...` (Yarn) is
 * output, not a step.
 */
export const BUILDKIT_STEP = /^#(\d+) \[\s*(?:(?:[^\]\s]+\/[^\]\s]+) )?(?:(\S+) )?(\d+)\/(\d+)\] ((?:FROM|RUN|COPY|ADD|WORKDIR)\b.*)$/i;

/** `#7 ERROR: executor failed running [/bin/sh -c npm ci]: exit code: 1`. */
export const BUILDKIT_ERROR = /^#(\d+) ERROR: (.*)$/;

/** Any line that starts a step, of either builder (BuildKit's `[internal]` vertices are not steps). */
export function isStepStart(line: string): boolean {
  return CLASSIC_STEP.test(line) || BUILDKIT_STEP.test(line);
}

/** A line that says why a BuildKit vertex failed, or the name of one (`#3 [internal] load metadata …`): kept with the step starts. */
export function isBuildkitMarker(line: string): boolean {
  return BUILDKIT_ERROR.test(line) || /^#\d+ \[/.test(line);
}
