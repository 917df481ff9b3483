// The part of the npm `smpp` package (which ships no types) that the SMPP provider and its tests use.
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer } from 'node:net';

  export interface PDU {
    command: string;
    command_status: number;
    [field: string]: unknown;
    response(options?: Record<string, unknown>): PDU;
  }

  export interface Session extends EventEmitter {
    send(pdu: PDU, onResponse?: (pdu: PDU) => void): boolean;
    bind_transmitter(options: Record<string, unknown>, onResponse: (pdu: PDU) => void): void;
    submit_sm(options: Record<string, unknown>, onResponse: (pdu: PDU) => void): void;
    unbind(options?: Record<string, unknown>, onResponse?: (pdu: PDU) => void): void;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
  }

  export interface Server extends NetServer {}

  export function connect(options: { host: string; port: number }, listener?: () => void): Session;
  export function createServer(listener: (session: Session) => void): Server;

  export const ESME_ROK: number;
  export const ESME_RBINDFAIL: number;
  export const ESME_RSUBMITFAIL: number;

  const smpp: {
    connect: typeof connect;
    createServer: typeof createServer;
    ESME_ROK: number;
    ESME_RBINDFAIL: number;
    ESME_RSUBMITFAIL: number;
  };
  export default smpp;
}
