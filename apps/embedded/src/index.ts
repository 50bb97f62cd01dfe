// The embedded launcher has no library surface; see main.ts.
export {};
