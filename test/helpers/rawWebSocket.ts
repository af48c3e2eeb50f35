/**
 * A WebSocket client over a raw TCP socket, for frames no well-behaved client
 * library would send: any opcode, reserved bits, an unmasked frame, a length
 * header with no payload behind it. It performs the RFC 6455 handshake itself
 * and parses what the server sends back (text messages and its close frame).
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/** One frame to write. */
export interface FrameSpec {
  opcode: number;
  payload?: Buffer;
  fin?: boolean;
  rsv1?: boolean;
  /** Clients must mask; false sends the payload in the clear (a protocol error). */
  mask?: boolean;
  /** The length the header announces (default: the payload's); the payload is sent as given. */
  length?: number;
}

/** Encodes one frame. */
export function frame(spec: FrameSpec): Buffer {
  const payload = spec.payload ?? Buffer.alloc(0);
  const length = spec.length ?? payload.length;
  const mask = spec.mask ?? true;
  const head: number[] = [(spec.fin === false ? 0 : 0x80) | (spec.rsv1 ? 0x40 : 0) | (spec.opcode & 0x0f)];
  const maskBit = mask ? 0x80 : 0;
  let ext = Buffer.alloc(0);
  if (length < 126) head.push(maskBit | length);
  else if (length < 65536) {
    head.push(maskBit | 126);
    ext = Buffer.alloc(2);
    ext.writeUInt16BE(length);
  } else {
    head.push(maskBit | 127);
    ext = Buffer.alloc(8);
    ext.writeBigUInt64BE(BigInt(length));
  }
  if (!mask) return Buffer.concat([Buffer.from(head), ext, payload]);
  const key = randomBytes(4);
  const masked = Buffer.from(payload.map((b, i) => b ^ key[i % 4]!));
  return Buffer.concat([Buffer.from(head), ext, key, masked]);
}

/** A text frame carrying `text` (masked, as a client sends it). */
export function textFrame(text: string): Buffer {
  return frame({ opcode: 1, payload: Buffer.from(text, 'utf8') });
}

/** An open raw WebSocket. */
export interface RawWebSocket {
  socket: Socket;
  /** Text messages received so far. */
  messages: string[];
  /** The close frame's code once one arrived (1005 for a close without a code). */
  readonly closeCode: number | undefined;
  /** Resolves when the TCP connection has ended (after or without a close frame). */
  ended: Promise<void>;
  write(bytes: Buffer): void;
}

/**
 * Opens `/api/ws` on `port` with `headers` (Host is set to `127.0.0.1:port`
 * unless given). Resolves once the server answered 101; rejects with the
 * status line of any other answer.
 */
export function openRawWebSocket(port: number, headers: Record<string, string>, options: { read?: boolean } = {}): Promise<RawWebSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const key = randomBytes(16).toString('base64');
    const lines = [
      'GET /api/ws HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${key}`,
      'Sec-WebSocket-Version: 13',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    if (headers['Host'] !== undefined) lines.splice(1, 1);
    let buffer = Buffer.alloc(0);
    let upgraded = false;
    let closeCode: number | undefined;
    const messages: string[] = [];
    let endedResolve: () => void = () => undefined;
    const ended = new Promise<void>((r) => (endedResolve = r));
    socket.on('close', () => endedResolve());
    socket.on('error', (error) => {
      if (!upgraded) reject(error);
    });
    const parseFrames = () => {
      for (;;) {
        if (buffer.length < 2) return;
        const opcode = buffer[0]! & 0x0f;
        let length = buffer[1]! & 0x7f;
        let offset = 2;
        if (length === 126) {
          if (buffer.length < 4) return;
          length = buffer.readUInt16BE(2);
          offset = 4;
        } else if (length === 127) {
          if (buffer.length < 10) return;
          length = Number(buffer.readBigUInt64BE(2));
          offset = 10;
        }
        if (buffer.length < offset + length) return;
        const payload = buffer.subarray(offset, offset + length);
        buffer = buffer.subarray(offset + length);
        if (opcode === 1) messages.push(payload.toString('utf8'));
        else if (opcode === 8) closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
      }
    };
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      if (!upgraded) {
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffer.subarray(0, end).toString('latin1');
        buffer = buffer.subarray(end + 4);
        const status = head.split('\r\n')[0]!;
        if (!/^HTTP\/1\.1 101 /.test(status)) {
          socket.destroy();
          reject(new Error(status));
          return;
        }
        upgraded = true;
        if (options.read === false) socket.pause();
        resolve({
          socket,
          messages,
          get closeCode() {
            return closeCode;
          },
          ended,
          write: (bytes) => socket.write(bytes),
        });
      }
      parseFrames();
    });
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  });
}

/** The six kinds of frame the protocol forbids, with the close code each must get. */
export const MALFORMED_FRAMES: readonly { name: string; bytes: (maxMessageBytes: number) => Buffer; code: number }[] = [
  // Only the header: the announced length alone must be refused, before any of it arrives.
  { name: 'a length header above the message limit', bytes: (max) => frame({ opcode: 1, length: Math.max(max + 1, 40 * 1024 * 1024) }).subarray(0, 14), code: 1009 },
  { name: 'invalid UTF-8 in a text frame', bytes: () => frame({ opcode: 1, payload: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) }), code: 1007 },
  { name: 'an unmasked frame', bytes: () => frame({ opcode: 1, payload: Buffer.from('{}'), mask: false }), code: 1002 },
  { name: 'opcode 3 (reserved)', bytes: () => frame({ opcode: 3, payload: Buffer.from('{}') }), code: 1002 },
  { name: 'RSV1 set without an extension', bytes: () => frame({ opcode: 1, payload: Buffer.from('{}'), rsv1: true }), code: 1002 },
  { name: 'a 126-byte ping', bytes: () => frame({ opcode: 9, payload: Buffer.alloc(126, 0x61) }), code: 1002 },
];
