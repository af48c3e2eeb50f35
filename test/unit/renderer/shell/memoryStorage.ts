/**
 * An in-memory stand-in for the browser's `localStorage`, installed before the
 * persisted stores load so their logic can be unit-tested in Node. The real
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
