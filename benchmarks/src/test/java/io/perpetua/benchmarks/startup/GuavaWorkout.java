package io.perpetua.benchmarks.startup;

import com.google.common.base.Joiner;
import com.google.common.base.Splitter;
import com.google.common.cache.CacheBuilder;
import com.google.common.cache.CacheLoader;
import com.google.common.cache.LoadingCache;
import com.google.common.collect.ImmutableSortedMap;
import com.google.common.collect.Multimap;
import com.google.common.collect.MultimapBuilder;
import com.google.common.collect.Sets;
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import com.google.common.hash.Hashing;
import com.google.common.primitives.Ints;

import java.nio.charset.StandardCharsets;
import java.util.List;

/** Some work for Guava: collections, hashing, strings, a cache. Prints the results, which must not change under the agent. */
public final class GuavaWorkout {
    private GuavaWorkout() {
    }

    public static void main(String[] args) throws Exception {
        Multimap<Integer, String> byLength = MultimapBuilder.treeKeys().arrayListValues().build();
        for (String word : Splitter.on(' ').split("the quick brown fox jumps over the lazy dog again and again")) {
            byLength.put(word.length(), word);
        }
        System.out.println(byLength);
        System.out.println(Sets.powerSet(Sets.newLinkedHashSet(List.of(1, 2, 3))).size() + " "
                + ImmutableSortedMap.of("b", 2, "a", 1, "c", 3) + " " + Ints.join("-", Ints.toArray(byLength.keySet())));
        System.out.println(Hashing.murmur3_128().hashString("persist me", StandardCharsets.UTF_8) + " "
                + Hashing.sha256().hashInt(42) + " " + Hashing.crc32c().hashBytes(new byte[] {1, 2, 3}));
        BloomFilter<Integer> bloom = BloomFilter.create(Funnels.integerFunnel(), 10_000, 0.01);
        for (int i = 0; i < 10_000; i += 3) {
            bloom.put(i);
        }
        int positives = 0;
        for (int i = 0; i < 10_000; i++) {
            positives += bloom.mightContain(i) ? 1 : 0;
        }
        LoadingCache<Integer, String> cache = CacheBuilder.newBuilder().maximumSize(100)
                .build(CacheLoader.from(i -> Joiner.on(',').join(i, i * i)));
        System.out.println(positives + " " + cache.get(7) + " " + cache.get(7) + " " + cache.size());
    }
}
