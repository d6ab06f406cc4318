import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { REQUEST_ID_HEADER } from './error-filter';
import { newId } from './ids';

/**
 * What the server answers when Node's HTTP parser refuses a request before any route sees it
 * (headers or URL over Node's 16 KiB, a malformed request line, a client that stalls): the §7
 * envelope with a request id, as 400 invalid_request, instead of Fastify's own body. A reset
 * connection gets nothing.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (socket.writable) {
    const requestId = newId('req');
    const message =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 'The request’s headers (the URL included) are larger than 16 KiB.'
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'The request was not received in time.'
          : 'The request is malformed.';
    const body = JSON.stringify({ error: { code: 'invalid_request', message, field: null, request_id: requestId } });
    socket.write(
      `HTTP/1.1 400 ${STATUS_CODES[400]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${REQUEST_ID_HEADER}: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
