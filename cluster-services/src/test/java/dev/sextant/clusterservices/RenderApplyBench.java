package dev.sextant.clusterservices;

import io.kubernetes.client.common.KubernetesObject;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Figures for the operator, printed and never asserted (timings depend on the machine). */
@DisplayName("Figures: render and apply times against the API double")
class RenderApplyBench {
    private static final int RUNS = 15;

    @TempDir
    Path dir;

    @Test
    @DisplayName("prints the median render, first-apply (12 creates) and re-apply (12 unchanged) times")
    void printsRenderAndApplyTimes() throws Exception {
        ServicesConfig config = new TestServices(dir).config();
        double[] render = new double[RUNS];
        double[] first = new double[RUNS];
        double[] again = new double[RUNS];
        for (int i = 0; i < RUNS; i++) {
            try (KubeApiDouble kube = new KubeApiDouble()) {
                long t0 = System.nanoTime();
                List<KubernetesObject> rendered = ClusterServices.render(config);
                long t1 = System.nanoTime();
                ClusterServicesApplier.apply(kube.client(), rendered);
                long t2 = System.nanoTime();
                ClusterServicesApplier.apply(kube.client(), rendered);
                long t3 = System.nanoTime();
                render[i] = (t1 - t0) / 1e6;
                first[i] = (t2 - t1) / 1e6;
                again[i] = (t3 - t2) / 1e6;
            }
        }
        System.out.printf("cluster-services figures (%d runs; first run / median): render %.1f / %.1f ms, "
                        + "first apply (12 creates) %.1f / %.1f ms, re-apply (12 unchanged) %.1f / %.1f ms%n",
                RUNS, render[0], median(render), first[0], median(first), again[0], median(again));
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
