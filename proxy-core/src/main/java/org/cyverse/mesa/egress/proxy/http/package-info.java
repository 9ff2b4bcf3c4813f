/** HTTP helpers both sides share: hop-by-hop fields, HTTP/2 streams as HTTP/1.1 messages, an HTTP/2 connection's end, a refused request head. */
package org.cyverse.mesa.egress.proxy.http;
