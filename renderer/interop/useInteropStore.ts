/**
 * Which Agent Skills dialog is open: the import (from the palette or the
 * desktop menu) or the export of one editor's package.
 */
import { create } from 'zustand';
import type { EditorRef } from '../editor/actions';

/** The open dialog, if any. */
export type InteropDialog = { kind: 'import' } | { kind: 'export'; editor: EditorRef };

export const useInteropStore = create<{ dialog: InteropDialog | undefined }>(() => ({ dialog: undefined }));

/** Opens a dialog (replacing one that is open). */
export function openInterop(dialog: InteropDialog): void {
  useInteropStore.setState({ dialog });
}

/** Closes the open dialog. */
export function closeInterop(): void {
  useInteropStore.setState({ dialog: undefined });
}
