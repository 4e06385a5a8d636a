export declare const CRASH_KEYS: string[];
export declare function crashRecord(version: number): { version: number; payload: string };
export declare function isWholeCrashRecord(value: unknown): boolean;
