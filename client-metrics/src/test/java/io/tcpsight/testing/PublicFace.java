package io.tcpsight.testing;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a user can name of a module is its public face: the public types outside
 * {@code io.tcpsight.internal} and their public and protected members. None of it may name an
 * internal type, in a supertype, a parameter, a return, a field or a thrown exception, generics
 * included: a user could not get or build such a value (a binder that takes an internal monitor
 * cannot be used). Each module's layering test checks its own classes with this.
 */
public final class PublicFace {
    private PublicFace() {}

    /** Each place of the public face that names an internal type, as "where: internal type"; empty when none. */
    public static Set<String> internalTypesNamed(JavaClasses classes) {
        Set<String> named = new TreeSet<>();
        for (JavaClass type : classes) {
            if (!isPublicFace(type)) {
                continue;
            }
            List<JavaType> supertypes = new ArrayList<>(type.getInterfaces());
            type.getSuperclass().ifPresent(supertypes::add);
            for (JavaType supertype : supertypes) {
                addInternal(named, type.getName() + " (a supertype)", supertype);
            }
            for (JavaMember member : type.getMembers()) {
                if (!member.getModifiers().contains(JavaModifier.PUBLIC)
                        && !member.getModifiers().contains(JavaModifier.PROTECTED)) {
                    continue;
                }
                String where = member.getFullName();
                if (member instanceof JavaField) {
                    addInternal(named, where, ((JavaField) member).getType());
                } else if (member instanceof JavaCodeUnit) {
                    JavaCodeUnit code = (JavaCodeUnit) member;
                    addInternal(named, where, code.getReturnType());
                    code.getParameterTypes().forEach(parameter -> addInternal(named, where, parameter));
                    code.getThrowsClause().getTypes().forEach(thrown -> addInternal(named, where, thrown));
                }
            }
        }
        return named;
    }

    /** A public type outside internal packages, and every type it is nested in public too. */
    private static boolean isPublicFace(JavaClass type) {
        if (isInternal(type) || type.isAnonymousClass() || type.isLocalClass()) {
            return false;
        }
        for (JavaClass at = type; at != null; at = at.getEnclosingClass().orElse(null)) {
            if (!at.getModifiers().contains(JavaModifier.PUBLIC)) {
                return false;
            }
        }
        return true;
    }

    private static void addInternal(Set<String> named, String where, JavaType type) {
        for (JavaClass involved : type.getAllInvolvedRawTypes()) {
            if (isInternal(involved)) {
                named.add(where + ": " + involved.getName());
            }
        }
    }

    private static boolean isInternal(JavaClass type) {
        return type.getPackageName().startsWith("io.tcpsight.")
                && type.getPackageName().contains(".internal");
    }
}
