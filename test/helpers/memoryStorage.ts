/**
 * An in-memory stand-in for the browser's `localStorage`, so the persisted
 * stores' logic can be unit-tested in Node. The unit project loads it as a
 * setup file, before any test file: a persisted store reads `localStorage`
 * once, when its module first loads, and in a worker that keeps modules
 * between files (no isolation) that may be any file's import. The real
 * storage is exercised by the end-to-end tests in Chromium.
 */
class MemoryStorage {
  private readonly items = new Map<string, string>();
  get length(): number {
    return this.items.size;
  }
  clear(): void {
    this.items.clear();
  }
  getItem(key: string): string | null {
    return this.items.get(key) ?? null;
  }
  key(index: number): string | null {
    return [...this.items.keys()][index] ?? null;
  }
  removeItem(key: string): void {
    this.items.delete(key);
  }
  setItem(key: string, value: string): void {
    this.items.set(key, String(value));
  }
}

const scope = globalThis as { localStorage?: unknown };
scope.localStorage ??= new MemoryStorage();
