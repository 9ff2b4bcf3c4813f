/**
 * One request or tunnel while it runs: its record (verdict, bytes, the one audit line), what it
 * needs of the proxy, and what it tells the connection that owns it.
 */
package org.cyverse.mesa.egress.proxy.exchange;
