/** The approval inbox of the running proxy, and the requests held for its decisions ({@code approvals.hold}). */
package org.cyverse.mesa.egress.proxy.approval;
