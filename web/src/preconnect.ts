/**
 * The first thing every page runs, inlined at the top of its <head> (build.mjs): open the
 * WebSocket to the broker now, while the rest of the page (MQTT.js and the page's code, some
 * 350 KB) still arrives and is parsed. `connection.ts` hands this socket to MQTT.js.
 *
 * Why: Mosquitto 2.0's websockets listener accepts a connection on one pass of its main loop
 * and reads the upgrade request on the next, and a quiet broker passes only every 100 ms; the
 * upgrade costs 100–200 ms however fast the page is. Started here it overlaps the page's own
 * parse instead of following it (docs/web.md, "How fast a page paints"). Only the socket is
 * opened: MQTT itself (CONNECT, the login, SUBSCRIBE) is MQTT.js's.
 */

import { brokerUrl } from "./params";

declare global {
  interface Window {
    /** the socket opened before the page's script ran; taken (once) by the connection */
    rhunaPreconnect?: { url: string; socket: WebSocket; at: number };
  }
}

try {
  const url = brokerUrl(location);
  window.rhunaPreconnect = { url, socket: new WebSocket(url, ["mqtt"]), at: performance.now() };
  performance.mark("rhuna:preconnect");
} catch {
  // a malformed broker URL: the connection reports it in the page's own words
}
