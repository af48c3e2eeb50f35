/**
 * The CLI's output boundary: stdout and stderr wrapped so every known secret is
 * removed before it reaches the terminal or a pipe (see core/redact.ts). The
 * secrets are the environment's keys, tokens and URL passwords, the passwords of
 * URLs given as arguments, `--token` values and the variables `--token-env` names.
 */
import { Writable } from 'node:stream';
import { createRedactor, secretsFromEnv, secretsOfUrl, type Redactor } from '../core/redact';
import type { CliIo } from './io';

/** The secret values a command line and its environment hold. */
export function commandLineSecrets(argv: readonly string[], env: CliIo['env']): string[] {
  const tokenEnvNames: string[] = [];
  const secrets: string[] = [];
  argv.forEach((arg, i) => {
    const next = argv[i + 1];
    if (arg === '--token-env' && next !== undefined) tokenEnvNames.push(next);
    else if (arg.startsWith('--token-env=')) tokenEnvNames.push(arg.slice('--token-env='.length));
    else if (arg === '--token' && next !== undefined) secrets.push(next);
    else if (arg.startsWith('--token=')) secrets.push(arg.slice('--token='.length));
    if (arg.includes('://')) secrets.push(...secretsOfUrl(arg));
  });
  return [...secrets, ...secretsFromEnv(env, tokenEnvNames)];
}

function redactingStream(target: NodeJS.WritableStream, redact: Redactor): NodeJS.WritableStream {
  return new Writable({
    decodeStrings: false,
    write(chunk: unknown, _encoding, callback) {
      const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8');
      target.write(redact(text), (error) => callback(error ?? null));
    },
  });
}

/** `io` with stdout and stderr passing through a redactor of the command line's secrets, which it also returns. */
export function redactingIo(io: CliIo, argv: readonly string[]): CliIo & { redact: Redactor } {
  const redact = createRedactor(commandLineSecrets(argv, io.env));
  return { ...io, stdout: redactingStream(io.stdout, redact), stderr: redactingStream(io.stderr, redact), redact, verbatimStdout: io.stdout };
}
