package dev.sextant.architecture;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;

/**
 * The main classes of every module, imported once for all the architecture tests. Tests are not
 * imported: a test may use any module its pom gives it.
 */
final class MainClasses {
    static final JavaClasses ALL = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.sextant");

    private MainClasses() {
    }
}
