/**
 * The page side of the validation worker: one worker per open document (its
 * scan cache belongs to that document), the latest answer only. Each edit is
 * posted with a new sequence number; an answer to an edit that has since been
 * superseded is dropped, so markers never show the verdict of older text.
 */
import type { SkillAuthoringLimits, SkillId } from '../../core/package/types';
import type { ValidationRequest, ValidationResponse } from '../validationWorker';
import ValidationWorker from '../validationWorker.ts?worker';

/** A document's validator. */
export interface DocumentValidator {
  /** Validates `text`; `onResult` gets the answer unless a later edit superseded it. */
  validate(text: string): void;
  /** The sequence number of the latest request. */
  readonly latest: number;
  dispose(): void;
}

/** Starts a worker for one document. */
export function createDocumentValidator(options: {
  id?: SkillId;
  limits?: Partial<SkillAuthoringLimits>;
  onResult: (response: ValidationResponse) => void;
}): DocumentValidator {
  const worker = new ValidationWorker();
  let seq = 0;
  worker.onmessage = (event: MessageEvent<ValidationResponse>) => {
    if (event.data.seq === seq) options.onResult(event.data);
  };
  return {
    validate(text) {
      seq += 1;
      const request: ValidationRequest = { seq, text, ...(options.id ? { id: options.id } : {}), ...(options.limits ? { limits: options.limits } : {}) };
      worker.postMessage(request);
    },
    get latest() {
      return seq;
    },
    dispose() {
      worker.terminate();
    },
  };
}
