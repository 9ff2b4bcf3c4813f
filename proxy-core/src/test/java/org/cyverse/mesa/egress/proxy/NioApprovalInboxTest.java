package org.cyverse.mesa.egress.proxy;

import org.cyverse.mesa.egress.testkit.SystemPropertyExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every {@link ApprovalInboxTest} case again on Netty's NIO transport ({@code -Dmesa.egress.transport=nio},
 * where epoll is not available): there a connection that is not read does not hear its client
 * close, which a held request must (it is read once while held).
 */
class NioApprovalInboxTest extends ApprovalInboxTest {

    @RegisterExtension
    static final SystemPropertyExtension NIO = new SystemPropertyExtension("mesa.egress.transport", "nio");
}
