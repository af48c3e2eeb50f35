/**
 * Transient notices in the corner (a command failed, a connection dropped).
 * Errors a person must act on inside a dialog are shown in that dialog instead.
 */
import { create } from 'zustand';

/** One notice. */
export interface Notice {
  id: number;
  kind: 'info' | 'error';
  text: string;
}

interface NotificationsState {
  notices: Notice[];
  push(kind: Notice['kind'], text: string): void;
  dismiss(id: number): void;
}

let nextId = 1;
const LIFETIME_MS = 6000;

export const useNotificationsStore = create<NotificationsState>((set, get) => ({
  notices: [],
  push(kind, text) {
    const id = nextId++;
    set({ notices: [...get().notices.filter((n) => n.text !== text), { id, kind, text }].slice(-4) });
    setTimeout(() => get().dismiss(id), kind === 'error' ? LIFETIME_MS * 2 : LIFETIME_MS);
  },
  dismiss(id) {
    set({ notices: get().notices.filter((n) => n.id !== id) });
  },
}));

/** A readable message for any thrown value. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === 'object' && 'message' in error && typeof (error as { message: unknown }).message === 'string') {
    return (error as { message: string }).message;
  }
  return String(error);
}
