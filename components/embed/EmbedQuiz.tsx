'use client';
/** One check-yourself question for an iframe: `ready` once, then `quiz-answered` for every answer checked. */
import { useCallback, useEffect, useRef } from 'react';
import { QuizCard, type QuizAnswer } from '@/components/course/QuizCard';
import { questionById } from '@/simulations/lessons/catalog';
import { EmbedBar } from './EmbedBar';
import { useEmbedChannel, useReportHeight } from './embed-channel';
import { openLinksOutside } from './open-links-outside';

export function EmbedQuiz({ questionId, title }: { questionId: string; title: string }) {
  const question = questionById(questionId);
  const { target, post } = useEmbedChannel();
  const content = useRef<HTMLDivElement>(null);
  useReportHeight(content, target, post);
  const announced = useRef(false);
  useEffect(() => {
    if (!target || announced.current) return;
    announced.current = true;
    post({ type: 'ready', scenario: question?.scenario ?? null, view: 'quiz', questionId });
  }, [target, post, question?.scenario, questionId]);

  const onAnswered = useCallback(
    (a: QuizAnswer) => post({ type: 'quiz-answered', scenario: question?.scenario ?? null, questionId: a.questionId, choiceId: a.choiceId, correct: a.correct }),
    [post, question?.scenario],
  );

  if (!question) return <p role="alert">There is no question {questionId}.</p>;
  return (
    <div ref={content} data-chrome="embed" onClick={openLinksOutside}>
      <EmbedBar title={title} href={question.scenario ? `/lab/${question.scenario}/` : '/'} target={target} />
      <QuizCard question={question} onAnswered={onAnswered} />
    </div>
  );
}
