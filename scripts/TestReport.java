import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * One summary of every module's Surefire and Failsafe reports (target/surefire-reports/TEST-*.xml,
 * target/failsafe-reports/TEST-*.xml): per module tests run / failed / skipped, every skip with its
 * reason, every failure with its stack trace and the tail of the test's redirected output.
 *
 * <p>Usage: {@code java scripts/TestReport.java [--allow FILE] [--strict] REPO_ROOT}. With
 * {@code --strict} (scripts/test.sh passes it when CI=true) a skip whose reason contains none of the
 * allow-list's lines fails the run: in CI a missing prerequisite is a failure, not a quiet skip.
 * Exit status: 0 clean, 1 failures (an unreadable report counts as one) or skips not allowed, 2 no
 * report found.
 * A single source file run by the JDK (no build, no dependency: the reports are read with the JDK's
 * own XML parser).
 */
public final class TestReport {
    private static final int OUTPUT_TAIL_LINES = 120;
    private static final int TRACE_LINES = 60;

    record Skip(String module, String test, String reason) {}

    record Failure(String module, String test, String kind, String message, String trace, Path output) {}

    static final class Counts {
        int run;
        int failed;
        int skipped;
    }

    public static void main(String[] args) throws Exception {
        Path allowFile = null;
        boolean strict = false;
        Path root = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--allow" -> allowFile = Path.of(args[++i]);
                case "--strict" -> strict = true;
                default -> root = Path.of(args[i]);
            }
        }
        if (root == null) {
            System.err.println("usage: java scripts/TestReport.java [--allow FILE] [--strict] REPO_ROOT");
            System.exit(2);
        }
        List<String> allowed = allowFile == null ? List.of() : allowList(allowFile);

        Map<String, Counts> modules = new TreeMap<>();
        List<Skip> skips = new ArrayList<>();
        List<Failure> failures = new ArrayList<>();
        List<Path> reports = reports(root);
        for (Path report : reports) {
            read(root, report, modules, skips, failures);
        }

        System.out.println();
        System.out.println("== test summary (" + reports.size() + " report files)");
        System.out.printf("%-20s %6s %7s %8s%n", "module", "run", "failed", "skipped");
        Counts total = new Counts();
        modules.forEach((module, c) -> {
            System.out.printf("%-20s %6d %7d %8d%n", module, c.run, c.failed, c.skipped);
            total.run += c.run;
            total.failed += c.failed;
            total.skipped += c.skipped;
        });
        System.out.printf("%-20s %6d %7d %8d%n", "all", total.run, total.failed, total.skipped);

        List<Skip> notAllowed = new ArrayList<>();
        if (!skips.isEmpty()) {
            System.out.println();
            System.out.println("skipped (" + skips.size() + "):");
            for (Skip s : skips) {
                boolean ok = allowed.stream().anyMatch(a -> s.reason().contains(a));
                if (!ok) {
                    notAllowed.add(s);
                }
                System.out.printf("  %s %s %s: %s%n", ok ? "[allowed]" : "[NOT ALLOWED]", s.module(), s.test(), s.reason());
            }
        }
        printFailures(root, failures);

        System.out.println();
        int passed = total.run - total.failed - total.skipped;
        System.out.printf("tests: %d passed, %d failed, %d skipped%n", passed, total.failed, total.skipped);
        int status = 0;
        if (reports.isEmpty()) {
            System.out.println("test summary: FAILED: no test report found under " + root);
            status = 2;
        }
        if (!failures.isEmpty()) {
            System.out.println("test summary: FAILED: " + failures.size() + " failing test(s): "
                    + String.join(", ", failures.stream().map(f -> f.module() + " " + f.test()).toList()));
            status = Math.max(status, 1);
        }
        if (strict && !notAllowed.isEmpty()) {
            System.out.println("test summary: FAILED: " + notAllowed.size() + " skip(s) not in the allow-list"
                    + (allowFile == null ? "" : " (" + allowFile + ")") + ", a missing or broken prerequisite: "
                    + String.join(", ", notAllowed.stream().map(s -> s.module() + " " + s.test()).toList()));
            status = Math.max(status, 1);
        }
        System.exit(status);
    }

    /** Each failure's message and stack trace, then the tail of its class's redirected output (once per class). */
    static void printFailures(Path root, List<Failure> failures) throws IOException {
        Set<Path> outputsShown = new HashSet<>();
        for (Failure f : failures) {
            System.out.println();
            System.out.printf("---- %s %s %s: %s%n", f.kind(), f.module(), f.test(), f.message());
            List<String> trace = f.trace().strip().lines().toList();
            trace.subList(0, Math.min(trace.size(), TRACE_LINES)).forEach(System.out::println);
            if (trace.size() > TRACE_LINES) {
                System.out.printf("\t... %d more lines in the report%n", trace.size() - TRACE_LINES);
            }
            if (f.output() != null && Files.isRegularFile(f.output()) && outputsShown.add(f.output())) {
                // Test output is not always valid UTF-8: decode leniently rather than lose it.
                List<String> lines = new String(Files.readAllBytes(f.output()), StandardCharsets.UTF_8).lines().toList();
                int from = Math.max(0, lines.size() - OUTPUT_TAIL_LINES);
                System.out.printf("---- last %d of %d lines of %s:%n", lines.size() - from, lines.size(), root.relativize(f.output()));
                lines.subList(from, lines.size()).forEach(System.out::println);
            }
        }
    }

    /** Non-blank lines that are not comments: each is a piece of text a skip reason must contain. */
    static List<String> allowList(Path file) throws IOException {
        return Files.readAllLines(file, StandardCharsets.UTF_8).stream().map(String::strip)
                .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    }

    /** The report files of every module: MODULE/target/... and one level deeper for nested modules. */
    static List<Path> reports(Path root) throws IOException {
        List<Path> found = new ArrayList<>();
        for (Path module : subdirectories(root)) {
            collect(module, found);
            for (Path nested : subdirectories(module)) {
                collect(nested, found);
            }
        }
        collect(root, found);
        return found.stream().sorted().toList();
    }

    private static List<Path> subdirectories(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            // Not out/ (build outputs and chroots), not hidden directories, not build output itself.
            return s.filter(Files::isDirectory).filter(p -> !p.getFileName().toString().startsWith("."))
                    .filter(p -> !List.of("out", "target", "src", "node_modules").contains(p.getFileName().toString()))
                    .toList();
        }
    }

    private static void collect(Path module, List<Path> found) throws IOException {
        for (String kind : new String[] {"surefire-reports", "failsafe-reports"}) {
            Path dir = module.resolve("target").resolve(kind);
            if (Files.isDirectory(dir)) {
                try (Stream<Path> s = Files.list(dir)) {
                    s.filter(p -> p.getFileName().toString().startsWith("TEST-") && p.toString().endsWith(".xml"))
                            .forEach(found::add);
                }
            }
        }
    }

    static void read(Path root, Path report, Map<String, Counts> modules, List<Skip> skips, List<Failure> failures)
            throws Exception {
        Path moduleDir = report.getParent().getParent().getParent();
        String module = root.relativize(moduleDir).toString();
        module = module.isEmpty() ? "." : module;
        Counts counts = modules.computeIfAbsent(module, m -> new Counts());
        Element suite;
        try {
            var factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            suite = factory.newDocumentBuilder().parse(report.toFile()).getDocumentElement();
        } catch (Exception e) {
            // A report cut short (a JVM killed mid-write) must not pass as "no tests".
            failures.add(new Failure(module, report.getFileName().toString(), "UNREADABLE REPORT", e.getMessage(), "", null));
            counts.failed++;
            counts.run++;
            return;
        }
        // The class from the file name: with @DisplayName, Surefire puts the display name in "classname".
        String fileName = report.getFileName().toString();
        String cls = fileName.substring("TEST-".length(), fileName.length() - ".xml".length());
        String simple = cls.substring(cls.lastIndexOf('.') + 1);
        NodeList cases = suite.getElementsByTagName("testcase");
        for (int i = 0; i < cases.getLength(); i++) {
            Element tc = (Element) cases.item(i);
            String name = tc.getAttribute("name");
            String test = name.isEmpty() || name.equals(tc.getAttribute("classname")) ? simple : simple + "#" + name;
            counts.run++;
            Element skipped = child(tc, "skipped");
            Element failure = child(tc, "failure");
            Element error = child(tc, "error");
            if (skipped != null) {
                counts.skipped++;
                skips.add(new Skip(module, test, skipReason(skipped)));
            } else if (failure != null || error != null) {
                counts.failed++;
                Element f = failure != null ? failure : error;
                Path output = report.resolveSibling(cls + "-output.txt");
                failures.add(new Failure(module, test, failure != null ? "FAILED" : "ERROR",
                        f.getAttribute("message"), f.getTextContent() + systemOut(tc), output));
            }
        }
    }

    /** The message attribute, or (Surefire 3 with JUnit 5 assumptions) the first line of the stack trace. */
    static String skipReason(Element skipped) {
        String reason = skipped.getAttribute("message");
        if (reason.isBlank()) {
            reason = skipped.getTextContent().strip().lines().findFirst().orElse("");
            for (String prefix : new String[] {"org.opentest4j.TestAbortedException:", "Assumption failed:"}) {
                if (reason.startsWith(prefix)) {
                    reason = reason.substring(prefix.length()).strip();
                }
            }
        }
        return reason.isBlank() ? "(no reason given)" : reason.strip();
    }

    /** Output that Surefire kept inside the report (when the module does not redirect it to a file). */
    private static String systemOut(Element tc) {
        StringBuilder out = new StringBuilder();
        for (String tag : new String[] {"system-out", "system-err"}) {
            Element e = child(tc, tag);
            if (e != null && !e.getTextContent().isBlank()) {
                out.append("\n[").append(tag).append("]\n").append(e.getTextContent().strip());
            }
        }
        return out.toString();
    }

    private static Element child(Element parent, String tag) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(tag)) {
                return e;
            }
        }
        return null;
    }
}
