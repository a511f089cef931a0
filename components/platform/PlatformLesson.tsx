'use client';
/** A lesson (its lab, its prediction and its questions) or the general questions, launched by a course platform. */
import dynamic from 'next/dynamic';
import { useMemo } from 'react';
import { QuizList } from '@/components/course/QuizList';
import type { LabScenario } from '@/components/lab/lab-scenario';
import { generalQuestions, questionsFor } from '@/simulations/lessons/catalog';
import { CHECK_UNIT } from './lesson-result';
import { PlatformUnit } from './PlatformUnit';

const LabCourse = dynamic(() => import('@/components/course/LabCourse').then((m) => m.LabCourse), {
  loading: () => <p role="status">Loading the lab…</p>,
});

export function PlatformLesson({ scenario }: { scenario: LabScenario }) {
  const questionIds = useMemo(() => questionsFor(scenario.id).map((q) => q.id), [scenario.id]);
  return (
    <PlatformUnit unit={scenario.id} questionIds={questionIds} lesson>
      {(onCode) => <LabCourse scenario={scenario} onYourCode={onCode} />}
    </PlatformUnit>
  );
}

export function PlatformCheck() {
  const questions = useMemo(() => generalQuestions(), []);
  const questionIds = useMemo(() => questions.map((q) => q.id), [questions]);
  return (
    <PlatformUnit unit={CHECK_UNIT} questionIds={questionIds} lesson={false}>
      {() => <QuizList questions={questions} heading="Two questions on the whole course" id="lesson-questions" />}
    </PlatformUnit>
  );
}
