/** The operator's side: the admin port, its token and calls, and the kill switch with what pulls it. */
package org.cyverse.mesa.egress.proxy.admin;
