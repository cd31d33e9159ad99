package dev.sextant.atls;

import dev.sextant.attestation.ecdsa.Ecdsa;
import dev.sextant.ecdsanative.NativeEcdsa;
import dev.sextant.tpm.attest.TpmAttester;
import dev.sextant.tpmmanufacturer.testkit.Swtpm;
import io.netty.handler.ssl.SslContext;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Handshake throughput of plain TLS 1.3 against aTLS, in one JVM on loopback (scripts/bench-atls.sh).
 * Like is compared with like: each aTLS row is divided by the plain row of the same shape (one-way
 * or mutual), all on BoringSSL with resumption off, measured in the same run.
 * Arguments: warm-up seconds per variant (default 15: on 2 cores C2 is still compiling after a
 * shorter warm-up), measured seconds per variant (10), client threads (4). System property
 * {@code bench.only=<text>}: run only the variants whose name contains it (e.g. "mutual", to profile
 * mutual aTLS next to its own baseline).
 */
public final class AtlsBench {
    /**
     * One configuration; {@code attestations} counts evidence produced, to rule out resumption, and
     * {@code quotes} the quotes signed for it (fewer when concurrent handshakes shared one);
     * {@code baseline} names the plain row it is compared with (null: it is a baseline).
     */
    record Variant(String name, String baseline, SslContext server, SslContext client, LongSupplier attestations,
                   LongSupplier quotes, AutoCloseable resources) implements AutoCloseable {
        @Override
        public void close() throws Exception { resources.close(); }
    }

    private static final double SETTLED_JIT_SHARE = 0.10;
    private static final double MAX_EXTRA_WARMUP_SECONDS = 45;

    private AtlsBench() {}

    public static void main(String[] args) throws Exception {
        double warmup = args.length > 0 ? Double.parseDouble(args[0]) : 15;
        double measure = args.length > 1 ? Double.parseDouble(args[1]) : 10;
        int threads = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        System.out.printf("aTLS bench: %d CPUs, warm-up %.0f s + measure %.0f s per variant, %d client threads%n",
                Runtime.getRuntime().availableProcessors(), warmup, measure, threads);
        List<String[]> rows = new ArrayList<>();
        java.util.Map<String, Double> baselines = new java.util.HashMap<>();
        String only = System.getProperty("bench.only", "");
        List<Variant> variants = variants();
        try {
            for (Variant variant : variants) {
                if (variant.name().contains(only)) {
                    rows.add(measure(variant, warmup, measure, threads, baselines));
                }
            }
        } finally {
            for (Variant variant : variants) { // the swtpm variants' processes outlive a failed run otherwise
                try {
                    variant.close();
                } catch (Exception e) {
                    System.err.printf("closing %s: %s%n", variant.name(), e);
                }
            }
        }
        print(rows);
        SoftwareEvidence node = new SoftwareEvidence("micro");
        MicroCosts.print(Math.max(1, measure / 3), node.attester, node.verifier);
    }

    /** One row; the ratio column is "-" when the variant's baseline was filtered out. */
    private static String[] measure(Variant variant, double warmup, double measure, int threads,
            java.util.Map<String, Double> baselines) throws Exception {
        try (HandshakeLoop loop = new HandshakeLoop(variant.server(), variant.client())) {
            warmUp(loop, warmup, threads);
            long before = variant.attestations().getAsLong();
            long quotesBefore = variant.quotes().getAsLong();
            HandshakeLoop.Result r = loop.run(measure, threads);
            long attested = variant.attestations().getAsLong() - before;
            long quoted = variant.quotes().getAsLong() - quotesBefore;
            if (variant.baseline() == null) {
                baselines.put(variant.name(), r.perSecond());
            }
            Double base = variant.baseline() == null ? Double.valueOf(r.perSecond()) : baselines.get(variant.baseline());
            System.out.printf("  done: %s%n", variant.name());
            return new String[] {variant.name(), String.format("%.1f", r.perSecond()),
                    String.format("%.2f", r.cpuMillisPerHandshake()),
                    String.format("%.2f", r.jitMillisPerHandshake()),
                    String.format("%.2f", r.cpuMillisPerHandshake() - r.jitMillisPerHandshake()),
                    Long.toString(r.failures()),
                    r.handshakes() == 0 ? "-" : String.format("%.2f", (double) attested / r.handshakes()),
                    r.handshakes() == 0 ? "-" : String.format("%.2f", (double) quoted / r.handshakes()),
                    base == null ? "-" : String.format("%.3f", r.perSecond() / base)};
        }
    }

    /**
     * At least {@code seconds}, then on in 3-second slices while the JIT compilers still take more
     * than {@value #SETTLED_JIT_SHARE} of the CPU (at most {@value #MAX_EXTRA_WARMUP_SECONDS} s more):
     * aTLS runs far more Java than plain TLS, and on a loaded machine its compilation outlasts any
     * fixed warm-up, which then shows up as CPU per handshake.
     */
    private static void warmUp(HandshakeLoop loop, double seconds, int threads) throws InterruptedException {
        HandshakeLoop.Result r = loop.run(seconds, threads);
        double extra = 0;
        while (r.jitShare() > SETTLED_JIT_SHARE && extra < MAX_EXTRA_WARMUP_SECONDS) {
            r = loop.run(3, threads);
            extra += 3;
        }
        System.out.printf("  warm-up %.0f s + %.0f s until JIT < %.0f%% of CPU (last slice: %.0f%%)%n",
                seconds, extra, SETTLED_JIT_SHARE * 100, r.jitShare() * 100);
    }

    private static List<Variant> variants() throws Exception {
        List<Variant> variants = new ArrayList<>();
        String oneWay = "plain TLS 1.3 one-way: static server cert, client pins it";
        String mutual = "plain TLS 1.3 mutual: static certs, each side pins the other's";
        PlainContexts plainOneWay = new PlainContexts(false);
        variants.add(new Variant(oneWay, null, plainOneWay.server, plainOneWay.client, () -> 0, () -> 0, () -> {}));
        SoftwareEvidence server = new SoftwareEvidence("bench-server");
        variants.add(new Variant("aTLS one-way: server mints + software TPM attests, client verifies", oneWay,
                AtlsContexts.server(OwnAttestation.by(server.attester), ClientVerification.anonymous()),
                AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(server.verifier)),
                () -> server.attester.calls.get(), server.node::quotes, () -> {}));
        if (Swtpm.onPath("swtpm") && Swtpm.onPath("swtpm_setup")) {
            SwtpmEvidence tpm = new SwtpmEvidence();
            variants.add(new Variant("aTLS one-way: server mints + swtpm quotes, client verifies", oneWay,
                    AtlsContexts.server(OwnAttestation.by(tpm.attester), ClientVerification.anonymous()),
                    AtlsContexts.client(OwnAttestation.none(), ServerVerification.by(tpm.verifier)),
                    () -> tpm.attester.calls.get(), tpm.tpmAttester::quotes, tpm));
        } else {
            System.out.println("SKIPPED swtpm variant: swtpm/swtpm_setup not on PATH (scripts/setup.sh)");
        }
        PlainContexts plainMutual = new PlainContexts(true);
        variants.add(new Variant(mutual, null, plainMutual.server, plainMutual.client, () -> 0, () -> 0, () -> {}));
        SoftwareEvidence client = new SoftwareEvidence("bench-client");
        variants.add(new Variant("aTLS mutual: both mint + software TPM attests, both verify", mutual,
                AtlsContexts.server(OwnAttestation.by(server.attester), ClientVerification.by(client.verifier)),
                AtlsContexts.client(OwnAttestation.by(client.attester), ServerVerification.by(server.verifier)),
                () -> server.attester.calls.get() + client.attester.calls.get(),
                () -> server.node.quotes() + client.node.quotes(), () -> {}));
        // The join service's ECDSA (NativeEcdsa); the software TPM's own quote signatures stay in Java.
        Ecdsa nativeEcdsa = NativeEcdsa.load();
        SoftwareEvidence nativeServer = new SoftwareEvidence(server.node, nativeEcdsa);
        SoftwareEvidence nativeClient = new SoftwareEvidence(client.node, nativeEcdsa);
        variants.add(new Variant("aTLS mutual as the join service: server native ECDSA, client (node) BouncyCastle", mutual,
                AtlsContexts.server(OwnAttestation.by(nativeServer.attester), ClientVerification.by(nativeClient.verifier),
                        nativeEcdsa),
                AtlsContexts.client(OwnAttestation.by(client.attester), ServerVerification.by(server.verifier)),
                () -> nativeServer.attester.calls.get() + client.attester.calls.get(),
                () -> server.node.quotes() + client.node.quotes(), () -> {}));
        variants.add(new Variant("aTLS mutual: both sides native ECDSA, software TPM attests", mutual,
                AtlsContexts.server(OwnAttestation.by(nativeServer.attester), ClientVerification.by(nativeClient.verifier),
                        nativeEcdsa),
                AtlsContexts.client(OwnAttestation.by(nativeClient.attester), ServerVerification.by(nativeServer.verifier),
                        nativeEcdsa),
                () -> nativeServer.attester.calls.get() + nativeClient.attester.calls.get(),
                () -> server.node.quotes() + client.node.quotes(), () -> {}));
        if (Swtpm.onPath("swtpm") && Swtpm.onPath("swtpm_setup")) {
            variants.add(swtpmMutual("aTLS mutual: both mint + swtpm quotes, one quote per handshake (before batching)",
                    mutual, 1));
            variants.add(swtpmMutual("aTLS mutual: both mint + swtpm quotes, waiting handshakes share one", mutual,
                    TpmAttester.MAX_BATCH));
        }
        return variants;
    }

    /** Server and client each with their own swtpm, whose CPU counts (HandshakeLoop). */
    private static Variant swtpmMutual(String name, String baseline, int maxBatch) throws Exception {
        SwtpmEvidence server = new SwtpmEvidence(maxBatch);
        SwtpmEvidence client = new SwtpmEvidence(maxBatch);
        return new Variant(name, baseline,
                AtlsContexts.server(OwnAttestation.by(server.attester), ClientVerification.by(client.verifier)),
                AtlsContexts.client(OwnAttestation.by(client.attester), ServerVerification.by(server.verifier)),
                () -> server.attester.calls.get() + client.attester.calls.get(),
                () -> server.tpmAttester.quotes() + client.tpmAttester.quotes(), () -> {
                    server.close();
                    client.close();
                });
    }

    private static void print(List<String[]> rows) {
        System.out.printf("%n%-70s %8s %9s %9s %9s %5s %9s %9s %8s%n", "variant", "hs/s", "CPU ms/hs", "JIT ms/hs",
                "-JIT", "fail", "attest/hs", "quotes/hs", "vs plain of same shape");
        for (String[] r : rows) {
            System.out.printf("%-70s %8s %9s %9s %9s %5s %9s %9s %8s%n", (Object[]) r);
        }
    }
}
