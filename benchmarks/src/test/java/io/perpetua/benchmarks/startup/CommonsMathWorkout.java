package io.perpetua.benchmarks.startup;

import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.LUDecomposition;
import org.apache.commons.math3.linear.RealMatrix;
import org.apache.commons.math3.stat.descriptive.DescriptiveStatistics;
import org.apache.commons.math3.util.FastMath;

/**
 * Some work for Apache Commons Math (on the class path through JMH): FastMath, whose literal
 * tables the agent's array write barrier must leave alone, statistics and a matrix inverse.
 * Prints the results, bit for bit, which must be the same with the agent as without.
 */
public final class CommonsMathWorkout {
    private CommonsMathWorkout() {
    }

    public static void main(String[] args) {
        double sum = 0;
        for (int i = 1; i <= 10_000; i++) {
            double x = i / 97.0;
            sum += FastMath.sin(x) + FastMath.exp(-x) + FastMath.log(x) + FastMath.pow(x, 1.5) + FastMath.atan2(x, 3);
        }
        DescriptiveStatistics stats = new DescriptiveStatistics();
        for (int i = 0; i < 1_000; i++) {
            stats.addValue(FastMath.cbrt(i) * (i % 7));
        }
        RealMatrix m = new Array2DRowRealMatrix(new double[][] {{4, 7, 2}, {3, 6, 1}, {2, 5, 3}});
        RealMatrix inverse = new LUDecomposition(m).getSolver().getInverse();
        System.out.println(Double.doubleToLongBits(sum) + " " + Double.doubleToLongBits(stats.getMean()) + " "
                + Double.doubleToLongBits(stats.getPercentile(90)) + " " + Double.doubleToLongBits(stats.getStandardDeviation()));
        for (double[] row : inverse.getData()) {
            for (double v : row) {
                System.out.print(Double.doubleToLongBits(v) + " ");
            }
        }
        System.out.println();
    }
}
