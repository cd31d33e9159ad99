package dev.sextant.architecture;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaConstructorCall;
import dev.sextant.attestation.verify.AttestedState;
import dev.sextant.attestation.verify.DocumentVerifier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static java.util.stream.Collectors.groupingBy;
import static java.util.stream.Collectors.mapping;
import static java.util.stream.Collectors.toList;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Rules on the main classes of every module that are not about which module imports which. */
@DisplayName("Code rules")
class CodeRulesTest {
    /**
     * Names more than one class may carry: each service's entry point keeps the name Micronaut gives
     * it, its package names the service, and launchers, images and scripts start it by its full name.
     */
    static final Set<String> SHARED_NAMES = Set.of("Application", "package-info");

    @Test
    @DisplayName("one class per simple name across the main code: an import, a stack trace or a log line names one class")
    void oneClassPerSimpleName() {
        Map<String, List<String>> byName = MainClasses.ALL.stream()
                .filter(JavaClass::isTopLevelClass)
                .filter(c -> !generatedByMicronaut(c))
                .filter(c -> !SHARED_NAMES.contains(c.getSimpleName()))
                .collect(groupingBy(JavaClass::getSimpleName, TreeMap::new, mapping(JavaClass::getName, toList())));
        byName.values().removeIf(sameName -> sameName.size() < 2);
        assertEquals(Map.of(), byName, "simple names of more than one class (rename one, or merge them if they do the same job)");
    }

    /**
     * Micronaut's compile-time classes: bean definitions ({@code $Name$Definition}) and intercepted
     * methods ({@code Name$Listener$method1$Intercepted}), top-level classes with a '$' in their name,
     * which no hand-written class has.
     */
    private static boolean generatedByMicronaut(JavaClass c) {
        return c.getName().substring(c.getPackageName().length() + 1).contains("$");
    }

    /**
     * AttestedState's constructor is package-private, which keeps out other packages but not a
     * second class of the verify package, nor a class of another module declared in that package:
     * the one place that runs every check is the one place that may construct it.
     */
    @Test
    @DisplayName("only the DocumentVerifier constructs an AttestedState: holding one means every check ran")
    void onlyTheVerifierConstructsAnAttestedState() {
        noClasses().that().doNotBelongToAnyOf(DocumentVerifier.class)
                .should().callConstructorWhere(describe("the constructor is AttestedState's",
                        (JavaConstructorCall call) -> call.getTargetOwner().isEquivalentTo(AttestedState.class)))
                .as("only " + DocumentVerifier.class.getName() + " constructs " + AttestedState.class.getSimpleName())
                .check(MainClasses.ALL);
    }
}
