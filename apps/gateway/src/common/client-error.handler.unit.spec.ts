import { clientErrorResponse } from './client-error.handler';

function parse(raw: string): { status: number; headers: string; body: unknown } {
  const [head, body] = raw.split('\r\n\r\n') as [string, string];
  return { status: Number(head.split(' ')[1]), headers: head, body: JSON.parse(body) };
}

describe('the answer to requests the HTTP parser refused', () => {
  it('answers oversized headers with 431 and the error envelope', () => {
    const res = parse(clientErrorResponse('HPE_HEADER_OVERFLOW')!);
    expect(res.status).toBe(431);
    expect(res.body).toEqual({
      error: 'request_header_fields_too_large',
      message: 'The request line or headers are too large.',
    });
    expect(res.headers).toContain('Connection: close');
  });

  it('answers any other parse failure with 400 validation_error and a correct length', () => {
    const raw = clientErrorResponse('HPE_INVALID_METHOD')!;
    const res = parse(raw);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'validation_error', message: 'The request is not valid HTTP.' });
    expect(raw).toContain(`Content-Length: ${Buffer.byteLength(JSON.stringify(res.body))}`);
  });

  it('writes nothing to a peer that reset the connection', () => {
    expect(clientErrorResponse('ECONNRESET')).toBeUndefined();
  });
});
