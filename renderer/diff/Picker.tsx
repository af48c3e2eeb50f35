/**
 * A small list dialog: pick one of a few options (a retained version, another
 * connection) with the arrows and Enter, or a click. One at a time; mounted
 * once by the diff module.
 */
import { useEffect, useState } from 'react';
import { create } from 'zustand';
import { Modal } from '../shell/Modal';
import { SafeText } from '../shell/SafeText';

/** One option. */
export interface PickerOption {
  id: string;
  label: string;
  detail?: string;
  disabled?: string;
}

interface PickerRequest {
  title: string;
  /** Loads the options; a rejection is shown in the dialog. */
  load: () => Promise<PickerOption[]>;
  onPick: (option: PickerOption) => void;
}

export const usePickerStore = create<{ request: PickerRequest | undefined }>(() => ({ request: undefined }));

/** Opens the picker. */
export function pick(request: PickerRequest): void {
  usePickerStore.setState({ request });
}

export function PickerHost() {
  const request = usePickerStore((s) => s.request);
  const [options, setOptions] = useState<PickerOption[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [index, setIndex] = useState(0);
  useEffect(() => {
    setOptions(undefined);
    setError(undefined);
    setIndex(0);
    if (!request) return;
    let cancelled = false;
    request.load().then(
      (loaded) => {
        if (cancelled) return;
        setOptions(loaded);
        setIndex(Math.max(0, loaded.findIndex((o) => !o.disabled)));
      },
      (e: unknown) => !cancelled && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      cancelled = true;
    };
  }, [request]);
  if (!request) return null;
  const close = () => usePickerStore.setState({ request: undefined });
  const choose = (option: PickerOption | undefined) => {
    if (!option || option.disabled) return;
    close();
    request.onPick(option);
  };
  return (
    <Modal title={request.title} onDismiss={close} testId="picker">
      <div
        className="picker-list"
        role="listbox"
        tabIndex={0}
        data-autofocus
        aria-activedescendant={options?.[index] ? `picker-${options[index].id}` : undefined}
        onKeyDown={(e) => {
          if (!options) return;
          if (e.key === 'ArrowDown') setIndex((i) => Math.min(options.length - 1, i + 1));
          else if (e.key === 'ArrowUp') setIndex((i) => Math.max(0, i - 1));
          else if (e.key === 'Enter') choose(options[index]);
          else return;
          e.preventDefault();
        }}
      >
        {!options && !error && <p className="muted">Loading…</p>}
        {error && (
          <p className="err" data-testid="picker-error">
            <SafeText text={error} />
          </p>
        )}
        {options?.length === 0 && <p className="muted">Nothing to choose from.</p>}
        {options?.map((o, i) => (
          <div
            key={o.id}
            id={`picker-${o.id}`}
            role="option"
            aria-selected={i === index}
            aria-disabled={o.disabled !== undefined}
            className={`picker-option${i === index ? ' selected' : ''}${o.disabled ? ' disabled' : ''}`}
            title={o.disabled}
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => choose(o)}
            data-testid={`picker-option-${o.id}`}
          >
            <SafeText text={o.label} />
            {o.detail && (
              <span className="muted">
                {' '}
                <SafeText text={o.detail} />
              </span>
            )}
          </div>
        ))}
      </div>
    </Modal>
  );
}
