/**
 * JavaScript source for a test app (a string put into its `app.js`): nothing to install, since no
 * package can be downloaded in a build here. Defines `frame(opcode, payload)` and
 * `acceptWebSocket(req, socket, reply)`, which completes the handshake and then answers each text
 * message with `reply(text)`, or answers nothing when `reply` is null. Its frame codec is
 * hand-written and as lenient as a careless app's: the tests see what the proxy lets through.
 */
export const WEBSOCKET_ECHO_JS = `
function frame(opcode, payload) {
  const head = payload.length < 126 ? Buffer.from([0x80 | opcode, payload.length]) : Buffer.from([0x80 | opcode, 126, payload.length >> 8, payload.length & 255]);
  return Buffer.concat([head, payload]);
}
function acceptWebSocket(req, socket, reply) {
  const accept = require("node:crypto").createHash("sha1").update(req.headers["sec-websocket-key"] + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").digest("base64");
  socket.write("HTTP/1.1 101 Switching Protocols\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\nSec-WebSocket-Accept: " + accept + "\\r\\n\\r\\n");
  socket.on("error", () => {});
  if (!reply) return;
  let buffer = Buffer.alloc(0);
  socket.on("data", (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (buffer.length < 2) return;
      const opcode = buffer[0] & 15;
      let length = buffer[1] & 127;
      let offset = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) return socket.destroy();
      const masked = (buffer[1] & 128) !== 0;
      const mask = offset;
      if (masked) offset += 4;
      if (buffer.length < offset + length) return;
      const payload = Buffer.from(buffer.subarray(offset, offset + length));
      if (masked) for (let i = 0; i < payload.length; i++) payload[i] ^= buffer[mask + (i % 4)];
      buffer = buffer.subarray(offset + length);
      if (opcode === 8) return socket.end(frame(8, Buffer.alloc(0)));
      if (opcode === 1) socket.write(frame(1, Buffer.from(reply(payload.toString()))));
    }
  });
}
`;
