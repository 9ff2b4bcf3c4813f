/** What the proxy counts and how it keeps secrets out of its logs: the metrics, the log redaction. */
package org.cyverse.mesa.egress.proxy.observe;
