package dev.sextant.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The module picture, checked on the main classes of every module. A module is its top-level package
 * {@code dev.sextant.<module>} (the Maven module's directory without the dash: {@code node-boot} is
 * {@code nodeboot}).
 */
@DisplayName("Module dependencies")
class ModuleDependenciesTest {
    /**
     * Which module may import which. One row "A B -> X Y" lets each of A, B import each of X, Y; a
     * module's rows add up. A module may always import itself; anything not allowed here is refused.
     * Layers from the bottom: protocol and evidence formats, TPM client, attested TLS and libraries,
     * services (what a node runs), host-side tools, the command line.
     */
    static final String MAY_IMPORT = """
            attestation                                    -> proto
            tpm                                            -> attestation proto
            atls                                           -> attestation proto
            ecdsanative                                    -> attestation
            measuredboot                                   -> attestation
            grpcsupport                                    -> atls attestation
            keys                                           -> attestation
            serviceconfig                                  ->
            diskcrypt                                      ->
            housekeeping                                   -> diskcrypt keys
            etcd                                           ->
            operatorfiles                                  ->

            kms                                            -> grpcsupport keys proto atls attestation
            joinapi                                        -> grpcsupport keys proto atls attestation tpm ecdsanative etcd
            clusterservices                                -> attestation proto keys grpcsupport atls
            nodeboot                                       -> grpcsupport keys proto atls attestation tpm clusterservices housekeeping diskcrypt etcd

            tpmmanufacturer                                -> tpm attestation
            imagebuilder                                      -> measuredboot attestation tpm
            localcluster                                   -> proto attestation tpm atls tpmmanufacturer measuredboot imagebuilder operatorfiles etcd keys

            kms joinapi nodeboot clusterservices           -> serviceconfig

            cli                                            -> proto attestation tpm atls tpmmanufacturer measuredboot imagebuilder localcluster keys clusterservices grpcsupport operatorfiles
            """;


    private static final JavaClasses classes = MainClasses.ALL;

    static Map<String, Set<String>> mayImport() {
        Map<String, Set<String>> table = new TreeMap<>();
        for (String row : MAY_IMPORT.strip().split("\\R")) {
            if (row.isBlank()) {
                continue;
            }
            String[] sides = row.split("->", -1);
            Set<String> targets = new TreeSet<>(words(sides[1]));
            for (String module : words(sides[0])) {
                table.computeIfAbsent(module, m -> new TreeSet<>()).addAll(targets);
            }
        }
        for (Set<String> targets : List.copyOf(table.values())) {
            targets.forEach(t -> table.computeIfAbsent(t, m -> new TreeSet<>()));
        }
        return table;
    }

    private static List<String> words(String s) {
        return Arrays.stream(s.trim().split("\\s+")).filter(w -> !w.isEmpty()).toList();
    }

    @Test
    @DisplayName("every module found in the classes has a row in the table (a new module must say what it may import)")
    void everyModuleIsInTheTable() {
        Set<String> found = new TreeSet<>();
        for (JavaClass c : classes) {
            found.add(moduleOf(c.getPackageName()));
        }
        found.remove("");
        assertEquals(found, mayImport().keySet(), "modules in the classes vs. modules in MAY_IMPORT");
    }

    @TestFactory
    @DisplayName("a module imports only the modules its row allows")
    Stream<DynamicTest> modulesImportOnlyWhatTheTableAllows() {
        return mayImport().entrySet().stream().map(row -> DynamicTest.dynamicTest(
                row.getKey() + " -> " + (row.getValue().isEmpty() ? "(nothing)" : String.join(" ", row.getValue())), () -> {
                    Set<String> allowed = new TreeSet<>(row.getValue());
                    allowed.add(row.getKey());
                    ArchRule rule = noClasses().that().resideInAPackage("dev.sextant." + row.getKey() + "..")
                            .should().dependOnClassesThat(describe("are in a module outside " + allowed,
                                    (JavaClass c) -> c.getPackageName().startsWith("dev.sextant.")
                                            && !allowed.contains(moduleOf(c.getPackageName()))))
                            .allowEmptyShould(true);
                    rule.check(classes);
                }));
    }

    @TestFactory
    @DisplayName("the packages of a module, its root package among them, are free of cycles")
    Stream<DynamicTest> noPackageCyclesWithinAModule() {
        return mayImport().keySet().stream().map(module -> DynamicTest.dynamicTest(module, () -> {
            slices().assignedFrom(eachPackageOf(module)).should().beFreeOfCycles()
                    .allowEmptyShould(true).check(classes);
        }));
    }

    /**
     * One slice per package of the module, the root package {@code dev.sextant.<module>} included: a
     * root package whose classes import a sub-package that imports the root back is a cycle too.
     */
    private static SliceAssignment eachPackageOf(String module) {
        String root = "dev.sextant." + module;
        return new SliceAssignment() {
            @Override
            public SliceIdentifier getIdentifierOf(JavaClass c) {
                String pkg = c.getPackageName();
                return pkg.equals(root) || pkg.startsWith(root + ".") ? SliceIdentifier.of(pkg) : SliceIdentifier.ignore();
            }

            @Override
            public String getDescription() {
                return "each package of " + root;
            }
        };
    }

    /** "nodeboot" for dev.sextant.nodeboot.x.y; "" outside dev.sextant. */
    static String moduleOf(String packageName) {
        if (!packageName.startsWith("dev.sextant.")) {
            return "";
        }
        String rest = packageName.substring("dev.sextant.".length());
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }
}
