package org.cyverse.mesa.egress.proxy.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** admin.token_file: one token, or LABEL TOKEN lines whose label the audit records as who decided. */
class AdminTokenTest {

    @TempDir
    Path dir;

    private AdminToken token(String text) throws IOException {
        Path file = dir.resolve("token");
        Files.writeString(file, text);
        return AdminToken.load(file);
    }

    @Test
    void aSingleTokenIsTheAdmin() throws IOException {
        AdminToken token = token("0123456789abcdef0123\n");
        assertEquals(new AdminToken.Caller(AdminToken.Check.OK, "admin"), token.check("Bearer 0123456789abcdef0123"));
        assertEquals(AdminToken.Check.WRONG, token.check("Bearer 0123456789abcdef0124").check());
        assertEquals(AdminToken.Check.MISSING, token.check(null).check());
        assertEquals(AdminToken.Check.MISSING, token.check("Basic 0123456789abcdef0123").check());
    }

    @Test
    void labelledTokensSayWhoCalled() throws IOException {
        AdminToken token = token("# one per operator\nalice aaaaaaaaaaaaaaaa1111\ninbox@de bbbbbbbbbbbbbbbb2222\n\n");
        assertEquals("alice", token.check("Bearer aaaaaaaaaaaaaaaa1111").label());
        assertEquals("inbox@de", token.check("bearer bbbbbbbbbbbbbbbb2222").label());
        assertEquals(AdminToken.Check.WRONG, token.check("Bearer alice").check(), "a label is no token");
    }

    @Test
    void malformedFilesAreRefusedAtStartNamingTheKey() {
        for (String text : new String[] {"", "short\n", "alice aaaaaaaaaaaaaaaa1111\nalice bbbbbbbbbbbbbbbb2222\n",
                "alice aaaaaaaaaaaaaaaa1111 extra\n", "al ice aaaaaaaaaaaaaaaa1111\n", "bob short\n"}) {
            IOException e = assertThrows(IOException.class, () -> token(text), text);
            assertTrue(e.getMessage().startsWith("admin.token_file "), e.getMessage());
        }
    }
}
