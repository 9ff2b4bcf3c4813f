/** An established CONNECT tunnel: the relay both ways, and the checks of the TLS hellos it carries (SNI, HelloRetryRequest). */
package org.cyverse.mesa.egress.proxy.tunnel;
