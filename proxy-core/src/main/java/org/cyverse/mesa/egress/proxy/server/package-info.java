/** The running proxy: its listeners, the snapshot it swaps on reload, the reload of its config file, its stop. */
package org.cyverse.mesa.egress.proxy.server;
