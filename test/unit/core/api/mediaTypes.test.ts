import { describe, expect, it } from 'vitest';
import { mediaTypeOf } from '../../../../core/api/mediaTypes';

describe('mediaTypeOf', () => {
  it('names the renderer files by extension, case-insensitively, and anything else as opaque bytes', () => {
    expect(mediaTypeOf('/srv/dist/renderer/index.html')).toBe('text/html; charset=utf-8');
    expect(mediaTypeOf('assets/index-3f2a.JS')).toBe('text/javascript; charset=utf-8');
    expect(mediaTypeOf('C:\\app\\assets\\json.worker.wasm')).toBe('application/wasm');
    expect(mediaTypeOf('assets.d/README')).toBe('application/octet-stream');
    expect(mediaTypeOf('payload.exe')).toBe('application/octet-stream');
  });
});
