package org.cyverse.mesa.egress.approval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;
import java.util.logging.Logger;

/**
 * {@code approvals.state_file}: the inbox's approvals across a restart of the proxy inside one
 * job. Written whole to a temporary file and renamed over the old one, so a crash leaves either
 * the old state or the new. A file that cannot be read as the proxy wrote it is not trusted: it is
 * moved aside ({@code .corrupt-<time>}), said loudly, and the proxy starts with no approvals
 * (fail closed: nothing granted that the file might not have said).
 */
public final class ApprovalStateFile {

    private static final Logger LOG = Logger.getLogger(ApprovalStateFile.class.getName());
    private static final int VERSION = 1;

    private final Path file;

    public ApprovalStateFile(Path file) {
        this.file = file;
    }

    public Path path() {
        return file;
    }

    /** The approvals saved, or none (no file yet, or a corrupt one, moved aside). */
    public List<Approval> load() {
        if (!Files.exists(file)) {
            return List.of();
        }
        try {
            trusted(file);
            JsonNode root = ApprovalJson.JSON.readTree(file.toFile());
            if (root == null || root.path("version").asInt() != VERSION || !root.path("approvals").isArray()) {
                throw new IllegalArgumentException("not a version " + VERSION + " approvals file");
            }
            List<Approval> approvals = new ArrayList<>();
            for (JsonNode n : root.get("approvals")) {
                approvals.add(ApprovalJson.read(n));
            }
            return approvals;
        } catch (IOException | RuntimeException e) {
            Path aside = file.resolveSibling(file.getFileName() + ".corrupt-" + Instant.now().toString().replace(':', '-'));
            try {
                Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException moveFailed) {
                aside = null;
            }
            LOG.severe("approvals.state_file " + file + " cannot be read (" + e.getMessage() + "): starting with no approvals"
                    + (aside == null ? " (and it could not be moved aside)" : "; the file was kept as " + aside));
            return List.of();
        }
    }

    /**
     * Refuses a file the proxy's own user does not own, or that others may write: it grants
     * egress, so whoever could write it (the agent, through a shared volume) could grant itself.
     */
    private static void trusted(Path file) throws IOException {
        // The proxy's own user, as the file system sees it: the owner of a file it makes now (a
        // numeric UID without a passwd entry, as in the image, is named the same way).
        Path probe = Files.createTempFile(file.toAbsolutePath().getParent(), ".owner", ".tmp");
        java.nio.file.attribute.UserPrincipal me;
        try {
            me = Files.getOwner(probe);
        } finally {
            Files.deleteIfExists(probe);
        }
        java.nio.file.attribute.UserPrincipal owner = Files.getOwner(file);
        if (!owner.equals(me)) {
            throw new IOException("it is owned by " + owner.getName() + ", not by the proxy's user " + me.getName());
        }
        try {
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
            if (mode.contains(PosixFilePermission.GROUP_WRITE) || mode.contains(PosixFilePermission.OTHERS_WRITE)) {
                throw new IOException("others may write it (" + PosixFilePermissions.toString(mode) + ")");
            }
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: the owner check above is what there is
        }
    }

    /** Writes {@code approvals} atomically (one writer at a time: the later snapshot wins), readable by the proxy's user only. */
    public synchronized void save(List<Approval> approvals) throws IOException {
        ObjectNode root = ApprovalJson.JSON.createObjectNode();
        root.put("version", VERSION);
        ArrayNode list = root.putArray("approvals");
        approvals.forEach(a -> list.add(ApprovalJson.of(a)));
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Path temp = Files.createTempFile(parent, file.getFileName().toString(), ".tmp");
        try {
            Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // not POSIX
        }
        try {
            Files.write(temp, ApprovalJson.JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root));
            try {
                Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }
}
