/**
 * The SOURCEGRAPH_PLUGINS_* settings with their defaults. Integers must be at
 * least 1; TIMEOUT is a Go-style duration (`10s`, `1500ms`, `2m`);
 * MEMORY_MIB is at most 4096. An invalid value fails start-up with
 * "invalid plugin setting X".
 *
 * @module
 */

/** The plugin host's limits. */
export interface PluginSettings {
  disabled: boolean;
  timeoutMs: number;
  memoryMib: number;
  artifactBytes: number;
  metadataBytes: number;
  fileBytes: number;
  readBytes: number;
  outputBytes: number;
  readCalls: number;
  concurrency: number;
  cacheEntries: number;
  idleInstances: number;
}

const MIB = 1024 * 1024;

/** The defaults. */
export const DEFAULT_PLUGIN_SETTINGS: PluginSettings = {
  disabled: false,
  timeoutMs: 10_000,
  memoryMib: 256,
  artifactBytes: 32 * MIB,
  metadataBytes: 256 * 1024,
  fileBytes: 32 * MIB,
  readBytes: 128 * MIB,
  outputBytes: 2 * MIB,
  readCalls: 1024,
  concurrency: 8,
  cacheEntries: 16,
  idleInstances: 8,
};

const INTEGERS: [keyof PluginSettings, string][] = [
  ["memoryMib", "MEMORY_MIB"],
  ["artifactBytes", "ARTIFACT_BYTES"],
  ["metadataBytes", "METADATA_BYTES"],
  ["fileBytes", "FILE_BYTES"],
  ["readBytes", "READ_BYTES"],
  ["outputBytes", "OUTPUT_BYTES"],
  ["readCalls", "READ_CALLS"],
  ["concurrency", "CONCURRENCY"],
  ["cacheEntries", "CACHE_ENTRIES"],
  ["idleInstances", "IDLE_INSTANCES"],
];

/** Reads the settings; throws `invalid plugin setting X` on a bad value. */
export function pluginSettings(read: (name: string) => string | undefined): PluginSettings {
  const settings = { ...DEFAULT_PLUGIN_SETTINGS };
  const bad = (suffix: string) => new Error(`invalid plugin setting SOURCEGRAPH_PLUGINS_${suffix}`);
  const disabled = read("SOURCEGRAPH_PLUGINS_DISABLED");
  if (disabled !== undefined) {
    if (disabled !== "1" && disabled !== "0" && disabled !== "") throw bad("DISABLED");
    settings.disabled = disabled === "1";
  }
  const timeout = read("SOURCEGRAPH_PLUGINS_TIMEOUT");
  if (timeout !== undefined) {
    const ms = parseDuration(timeout);
    if (ms === null || ms < 1) throw bad("TIMEOUT");
    settings.timeoutMs = ms;
  }
  for (const [key, suffix] of INTEGERS) {
    const raw = read(`SOURCEGRAPH_PLUGINS_${suffix}`);
    if (raw === undefined) continue;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(value) || value < 1) throw bad(suffix);
    if (key === "memoryMib" && value > 4096) throw bad(suffix);
    (settings[key] as number) = value;
  }
  return settings;
}

/** Parses a Go-style duration into milliseconds, or null. */
export function parseDuration(text: string): number | null {
  const units: Record<string, number> = {
    ns: 1e-6,
    us: 1e-3,
    "µs": 1e-3,
    ms: 1,
    s: 1000,
    m: 60_000,
    h: 3_600_000,
  };
  const pattern = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index !== at) return null;
    total += Number(match[1]) * units[match[2]];
    at = match.index + match[0].length;
  }
  return at === text.length && at > 0 ? Math.round(total) : null;
}
