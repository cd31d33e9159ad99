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
 * Reads every module's Surefire and Failsafe reports (target/surefire-reports/TEST-*.xml,
 * target/failsafe-reports/TEST-*.xml) and JUnit's own event reports (target/junit-platform/N/open-test-report.xml,
 * which keep the reason of a class whose {@code @BeforeAll} assumption failed: Surefire reports such a class as
 * zero tests and no reason). Two modes:
 *
 * <p><b>Summary</b>: {@code java scripts/TestReport.java [--allow FILE] [--strict] REPO_ROOT}: per module tests
 * run / failed / skipped, every skip with its reason (a class that ran no test is a skip of the whole class),
 * every failure with its stack trace and the tail of the test's redirected output. With {@code --strict}
 * (scripts/test.sh passes it when CI=true) a skip whose reason contains none of the allow-list's lines fails
 * the run: in CI a missing prerequisite is a failure, not a quiet skip. Exit status: 0 clean, 1 failures (an
 * unreadable report counts as one) or skips not allowed, 2 no report found.
 *
 * <p><b>Stage check</b>: {@code java scripts/TestReport.java --stage NAME --since EPOCH_SECONDS
 * [--modules M,...] [--tags T,...] [--exclude-tags T,...] [--allow FILE] [--strict] REPO_ROOT}: the test classes
 * the stage must run are derived from the sources (every concrete class under MODULE/src/test/java whose name
 * Surefire includes and that declares or inherits a test method, filtered by its class-level {@code @Tag}s);
 * each must have a report written since the stage started. A class without one fails the stage, named; a class
 * that ran no test fails it too, unless its reason is allowed (with {@code --strict}; without it, it is printed).
 * A stage that expects no class fails: the derivation broke. Prints every expected class with its test count.
 *
 * <p>A single source file run by the JDK (no build, no dependency: the reports are read with the JDK's own XML
 * parser, the sources with regular expressions).
 */
public final class TestReport {
    private static final int OUTPUT_TAIL_LINES = 120;
    private static final int TRACE_LINES = 60;

    record Skip(String module, String test, String reason) {}

    record Failure(String module, String test, String kind, String message, String trace, Path output) {}

    /** One report file: a test class as Surefire saw it. */
    record ClassReport(String module, String className, int tests, int skipped, String firstSkipReason, Path file) {}

    /** A test class in the sources: what Surefire would run, and under which class-level tags. */
    record SourceClass(String module, String className, String simpleName, boolean concrete, boolean declaresTests,
            String superclass, Set<String> tags) {}

    static final class Counts {
        int run;
        int failed;
        int skipped;
    }

    public static void main(String[] args) throws Exception {
        Path allowFile = null;
        boolean strict = false;
        Path root = null;
        String stage = null;
        long since = 0;
        Set<String> modules = Set.of();
        Set<String> tags = Set.of();
        Set<String> excludedTags = Set.of();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--allow" -> allowFile = Path.of(args[++i]);
                case "--strict" -> strict = true;
                case "--stage" -> stage = args[++i];
                case "--since" -> since = Long.parseLong(args[++i]);
                case "--modules" -> modules = words(args[++i]);
                case "--tags" -> tags = words(args[++i]);
                case "--exclude-tags" -> excludedTags = words(args[++i]);
                default -> root = Path.of(args[i]);
            }
        }
        if (root == null) {
            System.err.println("usage: java scripts/TestReport.java [--allow FILE] [--strict] REPO_ROOT\n"
                    + "       java scripts/TestReport.java --stage NAME --since EPOCH_SECONDS [--modules M,...]"
                    + " [--tags T,...] [--exclude-tags T,...] [--allow FILE] [--strict] REPO_ROOT");
            System.exit(2);
        }
        List<String> allowed = allowFile == null ? List.of() : allowList(allowFile);
        int status = stage == null
                ? summary(root, allowed, allowFile, strict)
                : checkStage(root, stage, since, modules, tags, excludedTags, allowed, strict);
        System.exit(status);
    }

    static int summary(Path root, List<String> allowed, Path allowFile, boolean strict) throws Exception {
        Map<String, Counts> modules = new TreeMap<>();
        List<Skip> skips = new ArrayList<>();
        List<Failure> failures = new ArrayList<>();
        List<Path> reports = reports(root);
        Map<String, String> classReasons = classReasons(root, 0);
        for (Path report : reports) {
            ClassReport c = read(root, report, modules, skips, failures);
            if (c != null && c.tests() == 0) {
                skips.add(new Skip(c.module(), simpleName(c.className()) + WHOLE_CLASS,
                        classReasons.getOrDefault(c.className(), NO_REASON)));
            }
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
                boolean ok = allowed(allowed, s.reason());
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
        long classesSkipped = skips.stream().filter(s -> s.test().endsWith(WHOLE_CLASS)).count();
        if (classesSkipped > 0) {
            System.out.printf("test classes that ran no test: %d (listed under skipped)%n", classesSkipped);
        }
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
        return status;
    }

    /**
     * The stage check: every class the sources say this stage runs has a report from this stage with at least
     * one test, or (when it ran nothing) an allowed reason.
     */
    static int checkStage(Path root, String stage, long since, Set<String> modules, Set<String> tags,
            Set<String> excludedTags, List<String> allowed, boolean strict) throws Exception {
        List<SourceClass> expected = expectedClasses(root, modules, tags, excludedTags);
        Map<String, ClassReport> ran = new TreeMap<>();
        for (Path report : reports(root)) {
            if (Files.getLastModifiedTime(report).toMillis() >= since * 1000) {
                ClassReport c = read(root, report, new TreeMap<>(), new ArrayList<>(), new ArrayList<>());
                if (c != null) {
                    ran.put(c.module() + " " + c.className(), c);
                }
            }
        }
        Map<String, String> classReasons = classReasons(root, since);
        System.out.printf("%n== stage check \"%s\": %d test classes expected (%s; %s)%n", stage, expected.size(),
                modules.isEmpty() ? "every module" : "modules " + String.join(", ", modules), tagFilter(tags, excludedTags));
        List<String> missing = new ArrayList<>();
        List<String> ranNothing = new ArrayList<>();
        int allowedNothing = 0;
        int tests = 0;
        for (SourceClass c : expected) {
            ClassReport r = ran.get(c.module() + " " + c.className());
            String line;
            if (r == null) {
                missing.add(c.module() + " " + c.simpleName());
                line = "DID NOT RUN (no report since the stage started)";
            } else if (r.tests() == r.skipped()) {
                String reason = r.tests() == 0 ? classReasons.getOrDefault(c.className(), NO_REASON)
                        : "every test skipped: " + r.firstSkipReason();
                boolean ok = allowed(allowed, reason);
                if (ok) {
                    allowedNothing++;
                } else {
                    ranNothing.add(c.module() + " " + c.simpleName() + " (" + reason + ")");
                }
                line = "RAN NOTHING " + (ok ? "[allowed]" : "[NOT ALLOWED]") + ": " + reason;
            } else {
                tests += r.tests();
                line = r.tests() + " tests" + (r.skipped() > 0 ? ", " + r.skipped() + " skipped" : "");
            }
            System.out.printf("  %-18s %-48s %s%n", c.module(), c.simpleName(), line);
        }
        System.out.printf("stage check \"%s\": %d of %d classes ran, %d tests%s%n", stage,
                expected.size() - missing.size() - ranNothing.size() - allowedNothing, expected.size(), tests,
                allowedNothing == 0 ? "" : "; " + allowedNothing + " ran nothing for an allowed reason");
        int status = 0;
        if (expected.isEmpty()) {
            System.out.println("stage check: FAILED: no test class expected; the derivation from the sources found none");
            status = 1;
        }
        if (!missing.isEmpty()) {
            System.out.println("stage check: FAILED: " + missing.size() + " expected test class(es) did not run: "
                    + String.join(", ", missing));
            status = 1;
        }
        if (!ranNothing.isEmpty()) {
            System.out.println("stage check: " + (strict ? "FAILED" : "WARNING") + ": " + ranNothing.size()
                    + " test class(es) ran no test, for a reason not in the allow-list: " + String.join(", ", ranNothing));
            if (strict) {
                status = 1;
            }
        }
        return status;
    }

    private static final String WHOLE_CLASS = " (whole class, no test ran)";
    private static final String NO_REASON = "(no reason recorded: no JUnit event report names this class)";

    private static boolean allowed(List<String> allowList, String reason) {
        return allowList.stream().anyMatch(reason::contains);
    }

    private static Set<String> words(String list) {
        return Stream.of(list.split(",")).map(String::strip).filter(w -> !w.isEmpty())
                .collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));
    }

    private static String tagFilter(Set<String> tags, Set<String> excludedTags) {
        List<String> parts = new ArrayList<>();
        if (!tags.isEmpty()) {
            parts.add("tagged " + String.join(" or ", tags));
        }
        if (!excludedTags.isEmpty()) {
            parts.add("not tagged " + String.join(" or ", excludedTags));
        }
        return parts.isEmpty() ? "any tag" : String.join(", ", parts);
    }

    private static String simpleName(String className) {
        return className.substring(className.lastIndexOf('.') + 1);
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

    /** Adds one report's tests to its module's counts, skips and failures; null when the report is unreadable. */
    static ClassReport read(Path root, Path report, Map<String, Counts> modules, List<Skip> skips, List<Failure> failures)
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
            return null;
        }
        // The class from the file name: with @DisplayName, Surefire puts the display name in "classname".
        String fileName = report.getFileName().toString();
        String cls = fileName.substring("TEST-".length(), fileName.length() - ".xml".length());
        String simple = cls.substring(cls.lastIndexOf('.') + 1);
        NodeList cases = suite.getElementsByTagName("testcase");
        int skippedHere = 0;
        String firstSkipReason = null;
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
                skippedHere++;
                skips.add(new Skip(module, test, skipReason(skipped)));
                firstSkipReason = firstSkipReason == null ? skipReason(skipped) : firstSkipReason;
            } else if (failure != null || error != null) {
                counts.failed++;
                Element f = failure != null ? failure : error;
                Path output = report.resolveSibling(cls + "-output.txt");
                failures.add(new Failure(module, test, failure != null ? "FAILED" : "ERROR",
                        f.getAttribute("message"), f.getTextContent() + systemOut(tc), output));
            }
        }
        return new ClassReport(module, cls, cases.getLength(), skippedHere, firstSkipReason, report);
    }

    /**
     * The reason each test class ended without running its tests, from JUnit's event reports written since
     * {@code since} (epoch seconds): the class container's ABORTED throwable (a failed assumption in
     * {@code @BeforeAll}) or its SKIPPED reason (a disabled class). Keyed by class name.
     */
    static Map<String, String> classReasons(Path root, long since) throws Exception {
        Map<String, String> reasons = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> s = Files.find(root, 5, (p, a) -> p.getFileName().toString().equals("open-test-report.xml")
                && p.toString().contains("/target/junit-platform/") && a.lastModifiedTime().toMillis() >= since * 1000)) {
            files = s.sorted(java.util.Comparator.comparing(TestReport::lastModified)).toList();
        }
        for (Path file : files) {
            Element events;
            try {
                var factory = DocumentBuilderFactory.newInstance();
                factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
                events = factory.newDocumentBuilder().parse(file.toFile()).getDocumentElement();
            } catch (Exception e) {
                // A JVM killed mid-run leaves the file unterminated: its reasons are lost, the stage says so.
                continue;
            }
            Map<String, String> classById = new TreeMap<>();
            for (Element started : elements(events, "e:started")) {
                Element uniqueId = first(started, "junit:uniqueId");
                if (uniqueId != null) {
                    var m = CLASS_ID.matcher(uniqueId.getTextContent().strip());
                    if (m.matches()) {
                        classById.put(started.getAttribute("id"), m.group(1));
                    }
                }
            }
            for (Element finished : elements(events, "e:finished")) {
                String cls = classById.get(finished.getAttribute("id"));
                Element result = first(finished, "result");
                if (cls == null || result == null) {
                    continue;
                }
                String status = result.getAttribute("status");
                if (status.equals("ABORTED") || status.equals("SKIPPED")) {
                    Element why = first(result, status.equals("ABORTED") ? "java:throwable" : "reason");
                    String reason = why == null ? "" : why.getTextContent().strip().lines().findFirst().orElse("");
                    for (String prefix : new String[] {"org.opentest4j.TestAbortedException:", "Assumption failed:"}) {
                        if (reason.startsWith(prefix)) {
                            reason = reason.substring(prefix.length()).strip();
                        }
                    }
                    reasons.put(cls, reason.isBlank() ? "(no reason given)" : reason);
                }
            }
        }
        return reasons;
    }

    private static final java.util.regex.Pattern CLASS_ID =
            java.util.regex.Pattern.compile("\\[engine:[^\\]]+\\]/\\[class:([^\\]]+)\\]");

    private static long lastModified(Path p) {
        try {
            return Files.getLastModifiedTime(p).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }

    private static List<Element> elements(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        List<Element> list = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            list.add((Element) nodes.item(i));
        }
        return list;
    }

    private static Element first(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        return nodes.getLength() == 0 ? null : (Element) nodes.item(0);
    }

    // ---- the test classes the sources declare

    /** Surefire's default includes, applied to a class's simple name. */
    private static final java.util.regex.Pattern SUREFIRE_INCLUDES =
            java.util.regex.Pattern.compile("Test.*|.*Test|.*Tests|.*TestCase");
    private static final java.util.regex.Pattern TEST_METHOD = java.util.regex.Pattern.compile(
            "@(Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate|FuzzTest)\\b");
    private static final java.util.regex.Pattern CLASS_TAG = java.util.regex.Pattern.compile("@Tag\\(\"([^\"]+)\"\\)");

    /**
     * The classes a Surefire run with this tag filter executes, of the given modules (all of the root pom's when
     * empty): concrete, named as Surefire includes, declaring or inheriting (from a test class anywhere in the
     * repository, as test-jars share them) a test method.
     */
    static List<SourceClass> expectedClasses(Path root, Set<String> modules, Set<String> tags, Set<String> excludedTags)
            throws Exception {
        Map<String, SourceClass> bySimpleName = new TreeMap<>();
        List<SourceClass> all = new ArrayList<>();
        for (String module : rootModules(root)) {
            Path tests = root.resolve(module).resolve("src/test/java");
            if (!Files.isDirectory(tests)) {
                continue;
            }
            try (Stream<Path> s = Files.walk(tests)) {
                for (Path file : s.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                    SourceClass c = parse(module, tests, file);
                    if (c != null) {
                        all.add(c);
                        bySimpleName.putIfAbsent(c.simpleName(), c);
                    }
                }
            }
        }
        List<SourceClass> expected = new ArrayList<>();
        for (SourceClass c : all) {
            if (!c.concrete() || !SUREFIRE_INCLUDES.matcher(c.simpleName()).matches()
                    || (!modules.isEmpty() && !modules.contains(c.module()))) {
                continue;
            }
            boolean hasTests = false;
            Set<String> classTags = new java.util.TreeSet<>();
            for (SourceClass k = c; k != null; k = k.superclass() == null ? null : bySimpleName.get(k.superclass())) {
                hasTests |= k.declaresTests();
                classTags.addAll(k.tags());
                if (k.superclass() != null && k.superclass().equals(k.simpleName())) {
                    break;
                }
            }
            boolean included = tags.isEmpty() || classTags.stream().anyMatch(tags::contains);
            boolean excluded = classTags.stream().anyMatch(excludedTags::contains);
            if (hasTests && included && !excluded) {
                expected.add(c);
            }
        }
        return expected;
    }

    /** The top-level type a test source file declares, or null when it declares no class of its file's name. */
    private static SourceClass parse(String module, Path sourceRoot, Path file) throws IOException {
        String simple = file.getFileName().toString().replaceFirst("\\.java$", "");
        String text = Files.readString(file, StandardCharsets.UTF_8);
        var declaration = java.util.regex.Pattern.compile("(?m)^((?:public|protected|private|abstract|final|sealed|non-sealed|static|strictfp)\\s+)*"
                + "(class|interface|record|enum|@interface)\\s+" + simple + "\\b([^{]*)").matcher(text);
        if (!declaration.find() || !declaration.group(2).equals("class")) {
            return null;
        }
        String modifiers = text.substring(declaration.start(), declaration.start(2));
        var superclass = java.util.regex.Pattern.compile("extends\\s+([\\w.]+)").matcher(declaration.group(3));
        String header = text.substring(0, declaration.start());
        Set<String> tags = new java.util.TreeSet<>();
        var tag = CLASS_TAG.matcher(header.substring(Math.max(header.lastIndexOf(';'), 0)));
        while (tag.find()) {
            tags.add(tag.group(1));
        }
        String pkg = sourceRoot.relativize(file.getParent()).toString().replace('/', '.');
        return new SourceClass(module, pkg.isEmpty() ? simple : pkg + "." + simple, simple,
                !modifiers.contains("abstract"), TEST_METHOD.matcher(text).find(),
                superclass.find() ? simpleName(superclass.group(1)) : null, tags);
    }

    /** The modules the root pom lists, in its order. */
    static List<String> rootModules(Path root) throws Exception {
        var factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
        Element project = factory.newDocumentBuilder().parse(root.resolve("pom.xml").toFile()).getDocumentElement();
        return elements(project, "module").stream().map(e -> e.getTextContent().strip()).toList();
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
