/**
 * The upstream's side: resolving, vetting and dialing a destination, its pipeline (HTTP/1.1, or
 * HTTP/2 once ALPN chose it), and the connection an exchange travels on.
 */
package org.cyverse.mesa.egress.proxy.upstream;
