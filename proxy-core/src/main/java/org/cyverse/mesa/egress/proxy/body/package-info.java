/**
 * The bodies of an exchange, both ways: the request body held, scanned, checked and rewritten on
 * its way upstream; the response body scrubbed of echoed secrets and framed for the client.
 */
package org.cyverse.mesa.egress.proxy.body;
