package io.tcpsight.architecture;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Two files that use each other: a type (with its nested types) that depends on another, which
 * depends on it in turn. Such a pair can only be read, changed and tested together, so each module's
 * architecture test keeps the list of them empty.
 */
public final class FileTies {
    private FileTies() {}

    /** Every pair "A <-> B" of top-level types among {@code classes} that depend on each other. */
    public static Set<String> twoWay(JavaClasses classes) {
        Map<String, Set<String>> uses = new TreeMap<>();
        for (JavaClass type : classes) {
            String from = topLevel(type).getName();
            for (Dependency dependency : type.getDirectDependenciesFromSelf()) {
                JavaClass target = dependency.getTargetClass();
                if (!classes.contain(target.getName())) {
                    continue;
                }
                String to = topLevel(target).getName();
                if (!to.equals(from)) {
                    uses.computeIfAbsent(from, name -> new TreeSet<>()).add(to);
                }
            }
        }
        return mutual(uses);
    }

    /**
     * The same, read from the sources under {@code root}: a constant one file imports from another
     * is inlined by the compiler and leaves no trace in the class files, but ties the two files all
     * the same. A file uses the types it imports and those of its package it names in code
     * (comments and string literals left out).
     */
    public static Set<String> twoWayInSources(Path root) throws IOException {
        Map<String, String> packageOf = new TreeMap<>();
        Map<String, String> code = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file :
                    (Iterable<Path>) files.filter(path -> path.toString().endsWith(".java"))::iterator) {
                String name = file.getFileName().toString().replace(".java", "");
                String text = CODE_ONLY.matcher(Files.readString(file)).replaceAll(" ");
                Matcher declared = PACKAGE.matcher(text);
                String pkg = declared.find() ? declared.group(1) : "";
                packageOf.put(pkg + "." + name, pkg);
                code.put(pkg + "." + name, text);
            }
        }
        Map<String, Set<String>> uses = new TreeMap<>();
        code.forEach((type, text) -> {
            Set<String> used = uses.computeIfAbsent(type, key -> new TreeSet<>());
            Matcher imported = IMPORT.matcher(text);
            while (imported.find()) {
                if (code.containsKey(imported.group(1))) {
                    used.add(imported.group(1));
                }
            }
            Set<String> words = new TreeSet<>();
            Matcher word = IDENTIFIER.matcher(text);
            while (word.find()) {
                words.add(word.group());
            }
            String pkg = packageOf.get(type);
            for (String other : code.keySet()) {
                if (!other.equals(type)
                        && packageOf.get(other).equals(pkg)
                        && words.contains(other.substring(pkg.length() + 1))) {
                    used.add(other);
                }
            }
        });
        return mutual(uses);
    }

    /** Comments, string and character literals: what is not code. */
    private static final Pattern CODE_ONLY =
            Pattern.compile("/\\*.*?\\*/|//[^\\n]*|\"(?:\\\\.|[^\"\\\\])*\"|'(?:\\\\.|[^'\\\\])'", Pattern.DOTALL);

    private static final Pattern PACKAGE = Pattern.compile("\\bpackage\\s+([\\w.]+)\\s*;");
    /** An import of one of these types (static or not): the type is the part up to its first capital segment. */
    private static final Pattern IMPORT =
            Pattern.compile("\\bimport\\s+(?:static\\s+)?((?:[a-z_][\\w]*\\.)+[A-Z]\\w*)");

    private static final Pattern IDENTIFIER = Pattern.compile("\\b[A-Z]\\w*");

    /** The pairs in which each uses the other. */
    private static Set<String> mutual(Map<String, Set<String>> uses) {
        Set<String> ties = new TreeSet<>();
        uses.forEach((from, targets) -> {
            for (String to : targets) {
                if (from.compareTo(to) < 0 && uses.getOrDefault(to, Set.of()).contains(from)) {
                    ties.add(simple(from) + " <-> " + simple(to));
                }
            }
        });
        return ties;
    }

    private static JavaClass topLevel(JavaClass type) {
        JavaClass outer = type;
        while (outer.getEnclosingClass().isPresent()) {
            outer = outer.getEnclosingClass().get();
        }
        return outer;
    }

    private static String simple(String name) {
        return name.substring("io.tcpsight.".length());
    }
}
